import type { Caller, EventEnvelope, Subscription } from '@planhub/shared';
import { compareEventIds } from '@planhub/shared';
import type { EventHub } from '../events/event-hub.ts';
import { shouldPush } from '../events/match.ts';
import type { Store } from '../store/store.ts';
import type { ConnectionHooks } from '../tools/context.ts';

const PAGE = 500;

type SubscribeOutcome = Awaited<ReturnType<NonNullable<ConnectionHooks['onSubscribed']>>>;

export interface EventStreamDeps {
  viewer: Caller;
  hub: EventHub;
  store: Store;
  /** Pushes one event to the connection. */
  send: (event: EventEnvelope) => void;
  /** The viewer's stored subscriptions (made on any node, on an earlier connection too). */
  loadSubscriptions: () => Promise<Subscription[]>;
}

/**
 * One connection's push stream: a single sequence of events in log order, each at most once. It starts with the
 * connection's first subscribeToTasks (nothing is pushed before), so a client that resumes after a reconnect gets
 * the history it missed before any live event:
 * - starting replays the log after `after_event` (none without it) for ALL the viewer's stored subscriptions, while
 *   live events from the hub are buffered; the buffer is then drained. A cursor (the last event handled) drops every
 *   event the replay and the live feed both bring, so none is pushed twice and none out of order;
 * - later subscriptions on a started stream take effect from the cursor (an ordered stream cannot go back).
 */
export class EventStream {
  private readonly filters = new Map<string, Subscription>();
  private mode: 'idle' | 'starting' | 'live' | 'closed' = 'idle';
  private cursor: string | undefined;
  private buffer: EventEnvelope[] = [];
  private stopListening: (() => void) | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: EventStreamDeps) {}

  /** Calls on one connection may overlap; subscriptions are applied one at a time. */
  subscribe(sub: Subscription, afterEvent: string | undefined): Promise<SubscribeOutcome> {
    const run = this.queue.then(() => this.add(sub, afterEvent));
    this.queue = run.catch(() => undefined);
    return run;
  }

  unsubscribe(ids: readonly string[]): void {
    for (const id of ids) this.filters.delete(id);
  }

  close(): void {
    this.mode = 'closed';
    this.stopListening?.();
    this.stopListening = undefined;
    this.buffer = [];
    this.filters.clear();
  }

  readonly hooks: ConnectionHooks = {
    onSubscribed: (sub, afterEvent) => this.subscribe(sub, afterEvent),
    onUnsubscribed: (ids) => this.unsubscribe(ids),
  };

  private async add(sub: Subscription, afterEvent: string | undefined): Promise<SubscribeOutcome> {
    this.filters.set(sub.subscription_id, sub);
    if (this.mode !== 'idle') return { replayed: 0, last_event_id: this.cursor ?? '0-0', already_live: true };
    const { hub, store, viewer } = this.deps;
    this.mode = 'starting';
    // Listen first, read second: an event committed in between is in the buffer, the log, or both — never neither.
    this.stopListening = hub.listen(viewer.workspace, (event) => this.onLive(event));
    try {
      for (const stored of await this.deps.loadSubscriptions())
        if (!this.filters.has(stored.subscription_id)) this.filters.set(stored.subscription_id, stored);
      let replayed = 0;
      if (afterEvent === undefined) {
        this.cursor = (await store.readEvents(viewer.workspace, { count: 1 })).at(-1)?.event_id ?? '0-0';
      } else {
        this.cursor = afterEvent;
        replayed = await this.replay();
      }
      if (this.isClosed()) return { replayed, last_event_id: this.cursor, already_live: false };
      const buffered = this.buffer;
      this.buffer = [];
      for (const event of buffered) this.handle(event);
      this.mode = 'live';
      return { replayed, last_event_id: this.cursor, already_live: false };
    } catch (err) {
      if (!this.isClosed()) {
        this.stopListening?.();
        this.stopListening = undefined;
        this.mode = 'idle';
        this.buffer = [];
        this.cursor = undefined;
      }
      throw err;
    }
  }

  /** `mode` changes under our feet when the connection closes during an await. */
  private isClosed(): boolean {
    return this.mode === 'closed';
  }

  private async replay(): Promise<number> {
    let replayed = 0;
    for (;;) {
      const page = await this.deps.store.readEvents(this.deps.viewer.workspace, {
        after: this.cursor ?? '0-0',
        count: PAGE,
      });
      if (this.isClosed()) return replayed;
      for (const event of page) if (this.handle(event)) replayed += 1;
      // Once the replay reaches what the live buffer holds, the buffer covers the rest.
      const firstBuffered = this.buffer[0];
      if (page.length < PAGE) return replayed;
      if (firstBuffered && this.cursor && compareEventIds(this.cursor, firstBuffered.event_id) >= 0) return replayed;
    }
  }

  private onLive(event: EventEnvelope): void {
    if (this.mode === 'starting') this.buffer.push(event);
    else if (this.mode === 'live') this.handle(event);
  }

  /** Advances the cursor; pushes the event when it matches. True when pushed. */
  private handle(event: EventEnvelope): boolean {
    if (this.cursor !== undefined && compareEventIds(event.event_id, this.cursor) <= 0) return false;
    this.cursor = event.event_id;
    if (!shouldPush(this.deps.viewer, this.filters.values(), event)) return false;
    this.deps.send(event);
    return true;
  }
}
