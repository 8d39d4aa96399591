import type { Caller, EventEnvelope, Subscription } from '@planhub/shared';
import { compareEventIds } from '@planhub/shared';
import type { EventHub } from '../events/event-hub.ts';
import { shouldPush } from '../events/match.ts';
import { LOG_START, isPastLogEnd } from '../events/past-log-end.ts';
import type { Store } from '../store/store.ts';
import type { ConnectionHooks } from '../tools/context.ts';

const PAGE = 500;
/**
 * Live events held while the stream catches up, at most. Past it they are dropped and read back from the log instead
 * (it has them all), so a connection whose catch-up waits on a client that stopped reading holds little.
 */
const HELD_LIMIT = 100;

type SubscribeOutcome = Awaited<ReturnType<NonNullable<ConnectionHooks['onSubscribed']>>>;

/**
 * The first event pushed after the stream restarted from the oldest kept event, because the cursor it was asked to
 * start after lay past the log's end. It carries that cursor, so a client drops its own (which would make it discard
 * every event of the restarted stream as a duplicate) before handling this event (docs/protocol.md).
 */
export type RestartedEvent = EventEnvelope & { restarted_after: string };

export interface EventStreamDeps {
  viewer: Caller;
  hub: EventHub;
  store: Store;
  /** Pushes one event to the connection. */
  send: (event: EventEnvelope) => void;
  /** The viewer's stored subscriptions (made on any node, on an earlier connection too). */
  loadSubscriptions: () => Promise<Subscription[]>;
  /**
   * Asked after each event pushed while catching up (the replay, then the live events held meanwhile): a promise to
   * wait on before pushing more (the connection has much queued), or undefined to go on. A catch-up is a burst of up
   * to a page of the log at once; unpaced, it would pass the connection's outbound limit and get a client that reads
   * normally cut as a slow consumer, again on each resume.
   */
  pace?: () => Promise<void> | undefined;
}

/**
 * One connection's push stream: a single sequence of events in log order, each at most once. It starts with the
 * connection's first subscribeToTasks (nothing is pushed before), so a client that resumes after a reconnect gets
 * the history it missed before any live event:
 * - starting replays the log after `after_event` (none without it) for ALL the viewer's stored subscriptions, while
 *   live events from the hub are buffered; the buffer is then drained. A cursor (the last event handled) drops every
 *   event the replay and the live feed both bring, so none is pushed twice and none out of order;
 * - a starting cursor past the log's end (the log was reset) would drop every event for good: the stream restarts
 *   from the oldest kept event instead, and tells the client with its first push (RestartedEvent);
 * - later subscriptions on a started stream take effect from the cursor (an ordered stream cannot go back).
 */
export class EventStream {
  private readonly filters = new Map<string, Subscription>();
  private mode: 'idle' | 'starting' | 'live' | 'closed' = 'idle';
  private cursor: string | undefined;
  private buffer: EventEnvelope[] = [];
  /** The newest live event dropped from a full buffer: the catch-up reads the log at least up to it. */
  private dropped: string | undefined;
  private stopListening: (() => void) | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** Set while the first read after a caller's cursor has not yet shown the cursor lies within the log. */
  private unchecked = false;
  /** The cursor the stream restarted after, until the first push tells the client (RestartedEvent). */
  private restartedAfter: string | undefined;
  /** Ids unsubscribed while a later subscribe reads the stored subscriptions (see add). */
  private removedWhileReading: Set<string> | undefined;

  constructor(private readonly deps: EventStreamDeps) {}

  /** Calls on one connection may overlap; subscriptions are applied one at a time. */
  subscribe(sub: Subscription, afterEvent: string | undefined): Promise<SubscribeOutcome> {
    const run = this.queue.then(() => this.add(sub, afterEvent));
    this.queue = run.catch(() => undefined);
    return run;
  }

  unsubscribe(ids: readonly string[]): void {
    for (const id of ids) {
      this.filters.delete(id);
      this.removedWhileReading?.add(id);
    }
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
    if (this.mode !== 'idle') {
      // The agent's stored subscriptions again: what another connection removed meanwhile goes, and the filters stay
      // within the agent's own bound. An unsubscribe on this connection while the read is out wins over it.
      const removed = new Set<string>();
      this.removedWhileReading = removed;
      const stored = await this.deps.loadSubscriptions().finally(() => (this.removedWhileReading = undefined));
      if (this.isClosed()) return { replayed: 0, last_event_id: this.cursor ?? '0-0', already_live: true };
      this.filters.clear();
      for (const kept of stored) if (!removed.has(kept.subscription_id)) this.filters.set(kept.subscription_id, kept);
      this.filters.set(sub.subscription_id, sub);
      return { replayed: 0, last_event_id: this.cursor ?? '0-0', already_live: true };
    }
    this.filters.set(sub.subscription_id, sub);
    const { hub, store, viewer } = this.deps;
    this.mode = 'starting';
    // Listen first, read second: an event committed in between is in the buffer, the log, or both — never neither.
    this.stopListening = hub.listen(viewer.workspace, (event) => this.onLive(event));
    try {
      for (const stored of await this.deps.loadSubscriptions())
        if (!this.filters.has(stored.subscription_id)) this.filters.set(stored.subscription_id, stored);
      if (afterEvent === undefined)
        this.cursor = (await store.readEvents(viewer.workspace, { count: 1 })).at(-1)?.event_id ?? '0-0';
      else {
        this.cursor = afterEvent;
        this.unchecked = true;
      }
      // Live from the moment it returns (it switches in the same step as its last look at what it holds).
      const replayed = await this.catchUp(afterEvent !== undefined);
      return { replayed, last_event_id: this.cursor, already_live: false };
    } catch (err) {
      if (!this.isClosed()) {
        this.stopListening?.();
        this.stopListening = undefined;
        this.mode = 'idle';
        this.buffer = [];
        this.dropped = undefined;
        this.cursor = undefined;
        this.unchecked = false;
        this.restartedAfter = undefined;
      }
      throw err;
    }
  }

  /** `mode` changes under our feet when the connection closes during an await. */
  private isClosed(): boolean {
    return this.mode === 'closed';
  }

  /**
   * Reads the log after the cursor (when `read`), then hands over the live events held meanwhile, pacing every push;
   * live events dropped from a full buffer meanwhile send it back to the log. Returns how many events the log reads
   * pushed; nothing is held when it returns, and the stream is live unless the connection closed.
   */
  private async catchUp(read: boolean): Promise<number> {
    let replayed = 0;
    for (let reading = read; !this.isClosed(); reading = true) {
      if (reading) replayed += await this.replay();
      while (this.dropped === undefined && !this.isClosed()) {
        const event = this.buffer.shift();
        if (!event) break;
        if (this.handle(event)) await this.paced();
      }
      if (this.isClosed()) return replayed;
      if (this.dropped === undefined) {
        // With no await between the check that nothing is held and this: an event handed over after it is pushed
        // at once. Switched after the caller's await instead, an event committed on a microtask in between (another
        // call's commit on the memory store) was held and never pushed.
        this.mode = 'live';
        return replayed;
      }
    }
    return replayed;
  }

  private async replay(): Promise<number> {
    let replayed = 0;
    for (;;) {
      const droppedAtRead = this.dropped;
      const page = await this.deps.store.readEvents(this.deps.viewer.workspace, {
        after: this.cursor ?? '0-0',
        count: PAGE,
      });
      if (this.isClosed()) return replayed;
      if (this.unchecked) {
        this.unchecked = false;
        // Only an empty first read costs the check: a resume with events to replay is within the log.
        const from = this.cursor;
        const { store, viewer } = this.deps;
        if (page.length === 0 && from !== undefined && (await isPastLogEnd(store, viewer.workspace, from))) {
          if (this.isClosed()) return replayed;
          this.restartedAfter = from;
          this.cursor = LOG_START;
          continue;
        }
      }
      for (const event of page) {
        if (!this.handle(event)) continue;
        replayed += 1;
        await this.paced();
        if (this.isClosed()) return replayed;
      }
      // Live events dropped from the buffer are in the log: read on until past the newest of them. A read issued after
      // the drop that ended short has read all the log holds, whatever became of them (never a loop of empty reads).
      if (this.dropped !== undefined) {
        const past = this.cursor !== undefined && compareEventIds(this.cursor, this.dropped) >= 0;
        if (!past && !(page.length < PAGE && droppedAtRead === this.dropped)) continue;
        this.dropped = undefined;
      }
      // Once the replay reaches what the live buffer holds, the buffer covers the rest.
      const firstBuffered = this.buffer[0];
      if (page.length < PAGE) return replayed;
      if (firstBuffered && this.cursor && compareEventIds(this.cursor, firstBuffered.event_id) >= 0) return replayed;
    }
  }

  private async paced(): Promise<void> {
    const wait = this.deps.pace?.();
    if (wait) await wait;
  }

  private onLive(event: EventEnvelope): void {
    if (this.mode === 'live') this.handle(event);
    else if (this.mode === 'starting') this.hold(event);
  }

  /** Keeps a live event for after the catch-up; past HELD_LIMIT they all go, and the catch-up reads them back. */
  private hold(event: EventEnvelope): void {
    if (this.buffer.length < HELD_LIMIT) {
      this.buffer.push(event);
      return;
    }
    this.buffer = [];
    this.dropped = event.event_id;
  }

  /** Advances the cursor; pushes the event when it matches. True when pushed. */
  private handle(event: EventEnvelope): boolean {
    if (this.cursor !== undefined && compareEventIds(event.event_id, this.cursor) <= 0) return false;
    this.cursor = event.event_id;
    if (!shouldPush(this.deps.viewer, this.filters.values(), event)) return false;
    const restartedAfter = this.restartedAfter;
    this.restartedAfter = undefined;
    if (restartedAfter === undefined) this.deps.send(event);
    else {
      // A copy: the hub hands the same object to every listener of the workspace.
      const told: RestartedEvent = { ...event, restarted_after: restartedAfter };
      this.deps.send(told);
    }
    return true;
  }
}
