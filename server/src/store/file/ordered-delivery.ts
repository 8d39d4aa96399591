import type { EventEnvelope } from '@planhub/shared';
import type { EventListener } from '../store.ts';

/**
 * Hands committed events to the listeners in commit order. Commits take a ticket in the order they are queued,
 * which is the order the engine applies them (and gives out event ids); their promises may settle in any order, so
 * a commit's events wait here until every earlier commit has been delivered or skipped.
 */
export const createOrderedDelivery = (
  listeners: ReadonlySet<EventListener>,
  onListenerError?: (err: unknown, event: EventEnvelope) => void,
) => {
  const report =
    onListenerError ??
    ((err: unknown) =>
      queueMicrotask(() => {
        throw err;
      }));
  const ready = new Map<number, readonly EventEnvelope[]>();
  let issued = 0;
  let next = 0;

  const drain = () => {
    for (let events = ready.get(next); events !== undefined; events = ready.get(next)) {
      ready.delete(next);
      next += 1;
      for (const event of events)
        for (const listener of listeners) {
          try {
            listener(event);
          } catch (err) {
            report(err, event);
          }
        }
    }
  };

  return {
    ticket: () => issued++,
    done(ticket: number, events: readonly EventEnvelope[]) {
      ready.set(ticket, events);
      drain();
    },
    skip(ticket: number) {
      ready.set(ticket, []);
      drain();
    },
  };
};
