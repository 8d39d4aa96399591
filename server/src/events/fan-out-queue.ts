import type { EventEnvelope } from '@planhub/shared';

export type Listener = (event: EventEnvelope) => void;

/**
 * Listeners one event is handed to before the node turns to other work: each is a connection's push (a filter
 * match, an encode and a socket write, 20–60 µs on this project's machines), so a chunk holds the event loop for
 * about a millisecond. In the bench's crowded workspace (500 watchers) a bystander's loud p99 was 4.5–5.1 ms with
 * chunks of 16 and 5.2–7.0 ms with chunks of 64, against 14.9–16.4 ms without the queue (docs/bench-method.md).
 */
export const FAN_OUT_CHUNK = 16;

/**
 * Deliveries a workspace may have waiting. Yielding only reorders the node's work, it creates no capacity: a workspace
 * whose fan-out outruns the node would grow its queue without end, so what passes this backlog is handed out at
 * once, as before the queue, and the node's own backlog (its reads of the feed) pushes back on the writers. Only the
 * excess: a burst (a commit that unblocks many steps, a feed's read-back) still goes out in chunks up to the bound.
 */
export const FAN_OUT_BACKLOG = 4096;

interface Pending {
  event: EventEnvelope;
  /** The listeners at the time the event arrived: a later listener reads what it missed from the log instead. */
  listeners: Listener[];
  /** The next of them to call. */
  next: number;
}

/**
 * One workspace's events on their way to this node's listeners, in log order: every listener gets event N before any
 * gets event N + 1. An event with at most FAN_OUT_CHUNK listeners, arriving when nothing waits, is handed out at
 * once, as it always was. A larger fan-out is handed out a chunk at a time, with the event loop free between chunks
 * (setImmediate runs after the I/O that is ready), so a workspace with hundreds of watching connections delays
 * its own watchers rather than every other workspace's calls: 500 watchers held a bystander's call for a whole
 * event's fan-out each time (p50 2 → 17–41 ms).
 */
export class FanOutQueue {
  private readonly pending: Pending[] = [];
  private queued = 0;
  private scheduled = false;
  private draining = false;
  private closed = false;

  constructor(
    /** Whether a listener still listens: one that left while its event waited is not called. */
    private readonly listening: (listener: Listener) => boolean,
    private readonly onListenerError: (err: unknown) => void,
  ) {}

  push(event: EventEnvelope, listeners: Listener[]): void {
    if (this.closed || listeners.length === 0) return;
    // The common case, on every event: nothing waits (nothing is scheduled) and the fan-out fits in a chunk. Handed
    // out here, with nothing queued or allocated.
    if (!this.draining && !this.scheduled && listeners.length <= FAN_OUT_CHUNK) {
      this.draining = true;
      try {
        for (const listener of listeners) this.deliver(listener, event);
      } finally {
        this.draining = false;
      }
      if (this.pending.length > 0) this.drain(0);
      return;
    }
    this.pending.push({ event, listeners, next: 0 });
    this.queued += listeners.length;
    // A listener that causes an event while it is called (none does today) leaves it to the loop already running.
    if (this.draining) return;
    if (!this.scheduled) this.drain(FAN_OUT_CHUNK);
    else if (this.queued > FAN_OUT_BACKLOG) this.drain(this.queued - FAN_OUT_BACKLOG);
  }

  close(): void {
    this.closed = true;
    this.pending.length = 0;
    this.queued = 0;
  }

  /** Hands out up to `budget` deliveries, then leaves the rest to a later turn of the event loop. */
  private drain(budget: number): void {
    this.draining = true;
    try {
      for (let left = budget; left > 0 && !this.closed; left--) {
        const head = this.pending[0];
        if (head === undefined) break;
        const listener = head.listeners[head.next++]!;
        this.queued -= 1;
        if (head.next === head.listeners.length) this.pending.shift();
        if (this.listening(listener)) this.deliver(listener, head.event);
      }
    } finally {
      this.draining = false;
    }
    if (this.pending.length === 0 || this.scheduled || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.drain(Math.max(FAN_OUT_CHUNK, this.queued - FAN_OUT_BACKLOG));
    });
  }

  private deliver(listener: Listener, event: EventEnvelope): void {
    try {
      listener(event);
    } catch (err) {
      this.onListenerError(err);
    }
  }
}
