import type { EventOf, EventType, TaskEvent, ToolArgs, ToolName, ToolResult } from '@planhub/shared';
import { PlanHubError, isEventOf } from '@planhub/shared';
import type { BackoffOptions } from './backoff.ts';
import type { CallOptions, ConnectionState, StateInfo } from './connect-options.ts';
import { Emitter } from './emitter.ts';
import { EventInbox } from './event-inbox.ts';
import { eventReader } from './event-reader.ts';
import { DEFAULT_RENEWAL_BACKOFF, Renewal, type SubscriptionStateInfo } from './renewal.ts';
import { SubscriptionTracker } from './subscriptions.ts';

export type ClientEvents = {
  state: [ConnectionState, StateInfo];
  /** Each event as the typed union: `event.event_type === 'step_unblocked'` narrows `event.payload`. */
  event: [TaskEvent];
  reconnected: [];
  /** Whether the subscriptions receive events; see `subscriptionState`. */
  subscriptions: [SubscriptionStateInfo];
  /**
   * A failure the application did not call for: the first failed renewal of the subscriptions after a reconnect (the
   * renewal goes on: watch `subscriptions`), held events dropped because no listener took them, the first event of
   * a type this SDK cannot read (newer than it, or not fitting its schema), which is dropped like every later one, or
   * the node closing the connection as a slow consumer (the client reconnects and resumes: see StateInfo's `error`).
   */
  error: [PlanHubError];
};

/**
 * The client's event side: the subscriptions it renews after a reconnect, and the inbox that hands each event to the
 * application once, in order, none lost to a late listener or skipped by the resume cursor.
 */
export abstract class EventClient extends Emitter<ClientEvents> {
  protected readonly subscriptions = new SubscriptionTracker();
  protected readonly inbox = new EventInbox(
    (event) => this.emit('event', event),
    (count) =>
      this.emit(
        'error',
        new PlanHubError(
          'RESOURCE_EXHAUSTED',
          `${count} held event(s) dropped, and older ones will be: no listener takes their type. Attach one with ` +
            "on('event') or onEvent(type), or unsubscribe from types you do not need.",
        ),
      ),
  );
  /** Every event from the server passes here: it becomes the typed union, or is dropped and reported. */
  protected readonly readEvent = eventReader((error) => this.emit('error', error));
  protected subscriptionInfo: SubscriptionStateInfo = { state: 'idle', attempt: 0 };
  protected renewal: Renewal | undefined;

  constructor(private readonly renewalBackoff: BackoffOptions = DEFAULT_RENEWAL_BACKOFF) {
    super();
  }

  abstract call<N extends ToolName>(tool: N, args: ToolArgs<N>, options?: CallOptions): Promise<ToolResult<N>>;

  /**
   * The resume cursor: the newest event handed (or held) for the application. Events at or before it are dropped as
   * duplicates, and a reconnect resumes right after it, so nothing the application has not seen is skipped.
   */
  get lastEventId(): string | undefined {
    return this.inbox.lastEventId;
  }

  /** Whether the subscriptions receive events (`live`) or are being renewed; also pushed as `subscriptions`. */
  get subscriptionState(): SubscriptionStateInfo {
    return this.subscriptionInfo;
  }

  protected reportSubscriptions(info: SubscriptionStateInfo): void {
    // A lost connection already said `renewing`; the renewal starting on the next one is no news.
    const current = this.subscriptionInfo;
    if (info.state === current.state && info.attempt === current.attempt && info.error === current.error) return;
    const first = info.state === 'failed-retrying' && info.attempt === 1;
    this.subscriptionInfo = info;
    this.emit('subscriptions', info);
    if (first && info.error) this.emit('error', info.error);
  }

  /**
   * After a reconnect (to any node) each subscription is renewed, resuming after the last event delivered: the node
   * replays what was missed, then goes live, and the inbox drops anything already seen, so each event reaches the
   * application once, in order. A failed renewal (the node cannot reach its store) is retried with backoff until it
   * succeeds: the client never stays connected but deaf.
   */
  protected resubscribe(): void {
    this.renewal?.stop();
    const renewal = new Renewal({
      filters: () => this.subscriptions.filters(),
      subscribe: (filter) => this.call('subscribeToTasks', filter, { retries: 0 }),
      report: (info) => this.reportSubscriptions(info),
      backoff: this.renewalBackoff,
    });
    this.renewal = renewal;
    void renewal.run();
  }

  /**
   * A pushed event, handed to the application once it is read. One that carries `restarted_after` is the first of a
   * stream the node restarted from its log's oldest event (docs/protocol.md): the cursor is dropped before it, or
   * every event of the restarted stream would be dropped as one already seen.
   */
  protected receive(raw: unknown): void {
    let pushed = raw;
    if (typeof raw === 'object' && raw !== null && 'restarted_after' in raw) {
      const { restarted_after: _restartedAfter, ...event } = raw;
      this.inbox.restart();
      pushed = event;
    }
    const event = this.readEvent(pushed);
    if (event !== undefined) this.inbox.accept(event);
  }

  /**
   * A call's result as the application gets it: getTaskEvents' events read like pushed ones (its cursors stay the
   * server's, so paging goes past a dropped event).
   */
  protected readResult(tool: ToolName, result: unknown): unknown {
    if (tool !== 'getTaskEvents' || typeof result !== 'object' || result === null || !('events' in result))
      return result;
    if (!Array.isArray(result.events)) return result;
    const events = result.events.map(this.readEvent).filter((e) => e !== undefined);
    return { ...result, events, count: events.length };
  }

  /** Bookkeeping of the calls that shape the event stream. */
  protected observe(tool: ToolName, args: unknown, result: unknown): void {
    if (tool === 'subscribeToTasks') {
      const answer = result as ToolResult<'subscribeToTasks'>;
      this.subscriptions.record(args as ToolArgs<'subscribeToTasks'>, answer);
      // Only before any event arrived: every event up to the first stream position was pushed before the answer.
      // Later answers never move the cursor, which would skip events a node missed and never delivered.
      this.inbox.startAt(answer.last_event_id);
      if (this.subscriptionInfo.state === 'idle') this.reportSubscriptions({ state: 'live', attempt: 0 });
    } else if (tool === 'unsubscribe') {
      this.subscriptions.forget(args as ToolArgs<'unsubscribe'>);
      if (this.subscriptions.filters().length === 0) this.reportSubscriptions({ state: 'idle', attempt: 0 });
    }
  }

  /** Listens to every event; events that arrived before any listener are handed to the first one (see onEvent). */
  override on<K extends keyof ClientEvents>(name: K, listener: (...args: ClientEvents[K]) => void): () => void {
    const off = super.on(name, listener);
    return name === 'event' ? this.inbox.attach(undefined, off) : off;
  }

  /**
   * Listens to one event type; returns the unsubscribe. Events of that type that arrived while nothing listened to
   * them (between subscribing and attaching) are handed to it right after this call returns, in order.
   */
  onEvent<T extends EventType>(type: T, listener: (event: EventOf<T>) => void): () => void {
    const off = super.on('event', (event) => {
      if (isEventOf(event, type)) listener(event);
    });
    return this.inbox.attach(type, off);
  }
}
