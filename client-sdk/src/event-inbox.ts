import type { TaskEvent } from '@planhub/shared';
import { compareEventIds } from '@planhub/shared';

/**
 * How many events are held for listeners that are not attached yet, at most; beyond it the oldest are dropped (an
 * application that subscribes to types it never listens to must not grow without bound).
 */
export const HELD_EVENTS_LIMIT = 1_000;

/**
 * The events the application receives: each once, in log order, and none lost to a listener attached late.
 * - `lastEventId` is the resume cursor: the newest event accepted for the application. It only moves when an event
 *   arrives (or, before any did, to the position the first subscription answered), never over an event the
 *   application has not been given, so a reconnect resumes exactly after what the application has.
 * - An event that no listener would receive (no `event` listener and no `onEvent` listener for its type) is held
 *   until the first such listener attaches, then handed to it after the current tick: listeners attached together
 *   (in the same synchronous block) all get the held events, in order.
 */
export class EventInbox {
  lastEventId: string | undefined;
  private readonly held: TaskEvent[] = [];
  private anyType = 0;
  private readonly byType = new Map<string, number>();
  private flushQueued = false;
  private droppedBefore = false;

  constructor(
    private readonly hand: (event: TaskEvent) => void,
    private readonly onDropped: (count: number) => void,
    private readonly limit = HELD_EVENTS_LIMIT,
  ) {}

  /** An event from the stream: duplicates (at or before the cursor) are dropped. */
  accept(event: TaskEvent): void {
    if (this.lastEventId !== undefined && compareEventIds(event.event_id, this.lastEventId) <= 0) return;
    this.lastEventId = event.event_id;
    // Held events of this type go first, or a late listener would see them after a newer one.
    if (this.wanted(event.event_type) && !this.held.some((e) => e.event_type === event.event_type)) {
      this.hand(event);
      return;
    }
    this.held.push(event);
    if (this.held.length > this.limit) {
      const dropped = this.held.splice(0, this.held.length - this.limit).length;
      // Said once: an application that never listens to a type it subscribed to would otherwise hear it per event.
      if (!this.droppedBefore) this.onDropped(dropped);
      this.droppedBefore = true;
    }
    if (this.wanted(event.event_type)) this.queueFlush();
  }

  /** Where the stream stands before any event arrived: nothing at or before it is meant for the application. */
  startAt(position: string): void {
    this.lastEventId ??= position;
  }

  /**
   * The node restarted the stream from the oldest event its log keeps: the cursor lay past the log's end (the log was
   * reset, or the cursor came from another hub), so the ids from here on are lower and none of them is a duplicate.
   * Events still held keep their place: the application has not had them yet.
   */
  restart(): void {
    this.lastEventId = undefined;
  }

  /** Counts a listener (`type` undefined: every type) until the returned function runs. */
  attach(type: string | undefined, detach: () => void): () => void {
    if (type === undefined) this.anyType += 1;
    else this.byType.set(type, (this.byType.get(type) ?? 0) + 1);
    if (this.held.length > 0) this.queueFlush();
    let attached = true;
    return () => {
      if (!attached) return;
      attached = false;
      detach();
      if (type === undefined) this.anyType -= 1;
      else this.byType.set(type, (this.byType.get(type) ?? 1) - 1);
    };
  }

  /** How many events wait for a listener. */
  get heldCount(): number {
    return this.held.length;
  }

  private wanted(type: string): boolean {
    return this.anyType > 0 || (this.byType.get(type) ?? 0) > 0;
  }

  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => {
      this.flushQueued = false;
      const waiting = this.held.splice(0);
      for (const event of waiting) {
        if (this.wanted(event.event_type)) this.hand(event);
        else this.held.push(event);
      }
    });
  }
}
