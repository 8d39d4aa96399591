import type { TaskEvent } from '@planhub/shared';
import { EventTypeSchema, PlanHubError, TaskEventSchema, typedEvent } from '@planhub/shared';

const typeOf = (raw: unknown): string =>
  typeof raw === 'object' && raw !== null && 'event_type' in raw ? String(raw.event_type) : '(none)';

/**
 * Reads what the server sends as the typed union, so an application's `event.event_type === 'x'` narrows the payload
 * to that type's fields. An event it cannot read is dropped rather than handed on with a type it does not have:
 * - a type newer than this SDK (the server was upgraded first): a catch-all member with `event_type: string` would
 *   keep every check on event_type from narrowing, so there is none;
 * - a payload that does not fit its type's schema (the schemas accept every form the server ever wrote, so this is
 *   a server bug).
 * Each is reported once per event type on `report`, so the application learns of it without a flood.
 */
export const eventReader = (report: (error: PlanHubError) => void) => {
  const reported = new Set<string>();
  return (raw: unknown): TaskEvent | undefined => {
    const event = typedEvent(raw);
    if (event !== undefined) return event;
    const type = typeOf(raw);
    if (!reported.has(type)) {
      reported.add(type);
      // Parsed again for its issues: only the first unreadable event of a type pays for it.
      const issues = TaskEventSchema.safeParse(raw).error?.issues ?? [];
      report(
        EventTypeSchema.safeParse(type).success
          ? new PlanHubError('INTERNAL', `An event of type ${type} does not fit its schema; such events are dropped.`, {
              event_type: type,
              issues: issues.map(({ path, message }) => ({ path, message })),
            })
          : new PlanHubError(
              'FAILED_PRECONDITION',
              `Event type ${type} is newer than this SDK; its events are dropped. Upgrade @planhub/client-sdk to ` +
                'receive them.',
            ),
      );
    }
    return undefined;
  };
};
