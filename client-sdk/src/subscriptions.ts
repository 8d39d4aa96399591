import type { ToolArgs, ToolResult } from '@planhub/shared';

export type SubscriptionFilter = Omit<ToolArgs<'subscribeToTasks'>, 'after_event'>;

const keyOf = (filter: SubscriptionFilter): string =>
  JSON.stringify([
    filter.agent_id ?? '*',
    [...new Set(filter.event_types)].sort(),
    filter.plan_id ?? null,
    filter.step_id ?? null,
  ]);

/**
 * The application's subscriptions, remembered so the client can renew them on whichever node it reconnects to.
 * The server keeps them too; renewing with `after_event` is what resumes the event stream without gaps.
 */
export class SubscriptionTracker {
  private readonly byId = new Map<string, SubscriptionFilter>();
  /** Whether a subscribeToTasks has started the current connection's event stream (each connection starts its own). */
  private started = false;

  newConnection(): void {
    this.started = false;
  }

  /**
   * The first subscribeToTasks on a connection starts its stream. A client that already saw events (on an earlier
   * connection) must start it after the last one, whichever call comes first: its own renewal or the application's.
   * `live` is where the call's "$" stands (live-cursor.ts), so that an attempt sent again means what the first meant.
   */
  resuming(args: unknown, lastEventId: string | undefined, live?: string): unknown {
    // Not an object (null from an untyped caller, say): sent as it is, for the node to refuse with INVALID_ARGUMENT.
    if (typeof args !== 'object' || args === null) return args;
    const call = args as ToolArgs<'subscribeToTasks'>;
    // "$" (live only) would start this connection's stream at its head, skipping what the client missed meanwhile.
    if ((call.after_event !== undefined && call.after_event !== '$') || this.started) return args;
    if (lastEventId !== undefined) return { ...call, after_event: lastEventId };
    return live !== undefined ? { ...call, after_event: live } : args;
  }

  record(args: ToolArgs<'subscribeToTasks'>, result: ToolResult<'subscribeToTasks'>): void {
    this.started = true;
    const { after_event: _after, ...filter } = args;
    // One entry per filter: an identical subscription renewed under a new id replaces the old entry.
    for (const [id, known] of this.byId) if (keyOf(known) === keyOf(filter)) this.byId.delete(id);
    this.byId.set(result.subscription_id, filter);
  }

  forget(args: ToolArgs<'unsubscribe'>): void {
    if (args.all === true) this.byId.clear();
    else if (args.subscription_id !== undefined) this.byId.delete(args.subscription_id);
  }

  filters(): SubscriptionFilter[] {
    return [...this.byId.values()];
  }
}
