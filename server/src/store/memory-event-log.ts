import type { EventEnvelope } from '@planhub/shared';
import { compareEventIds } from '@planhub/shared';

/** What a store's logs hold together (see EventLog's `total`). */
export interface EventTotals {
  bytes: number;
  pinned: number;
}

/** Dropped slots are reclaimed once there are at least this many and they outnumber the kept events. */
const COMPACT_AFTER = 1024;

/**
 * One workspace's event log in the memory store: appended at the end, trimmed at the front, searched by id, with
 * the JSON bytes of what it keeps.
 *
 * Why not a plain array: a full log (the retention, 10,000 events by default) trimmed with `splice(0, k)` moves
 * every kept event on every commit; under 50 agents that was 8.5 % of a memory node's CPU. Here the front advances,
 * and the array is compacted only when the dropped part is as long as the kept part, so each event is moved at most
 * once on average. Ids increase strictly along the log (the store makes them so), which makes a search by id a
 * binary search instead of a scan.
 */
export class EventLog {
  #events: (EventEnvelope | undefined)[] = [];
  #sizes: number[] = [];
  #head = 0;
  #bytes = 0;
  #trimmedThrough: string | undefined;
  /**
   * Every log of a store adds to one total, so the node's bound reads it without visiting each log: `bytes` of all
   * events kept, and `pinned`, the bytes of each log's newest event, which the event budget never drops.
   */
  readonly #total: EventTotals | undefined;

  constructor(total?: EventTotals) {
    this.#total = total;
  }

  /** JSON bytes of the newest event (0 when the log is empty). */
  get newestBytes(): number {
    return this.length === 0 ? 0 : (this.#sizes.at(-1) as number);
  }

  get length(): number {
    return this.#events.length - this.#head;
  }

  /** JSON bytes of the events kept. */
  get bytes(): number {
    return this.#bytes;
  }

  append(event: EventEnvelope, bytes: number): void {
    if (this.#total) this.#total.pinned += bytes - this.newestBytes;
    this.#events.push(event);
    this.#sizes.push(bytes);
    this.#bytes += bytes;
    if (this.#total) this.#total.bytes += bytes;
  }

  /** The newest event id dropped (Store.trimmedThrough); undefined while none was. */
  get trimmedThrough(): string | undefined {
    return this.#trimmedThrough;
  }

  /** Drops the oldest event; answers its bytes (0 when the log is empty). */
  dropOldest(): number {
    if (this.length === 0) return 0;
    const bytes = this.#sizes[this.#head] as number;
    this.#trimmedThrough = this.#events[this.#head]?.event_id;
    // The slot is cleared at once so the dropped event can be collected before the next compaction.
    this.#events[this.#head] = undefined;
    this.#head += 1;
    this.#bytes -= bytes;
    if (this.#total) {
      this.#total.bytes -= bytes;
      if (this.length === 0) this.#total.pinned -= bytes;
    }
    if (this.#head >= COMPACT_AFTER && this.#head * 2 >= this.#events.length) {
      this.#events = this.#events.slice(this.#head);
      this.#sizes = this.#sizes.slice(this.#head);
      this.#head = 0;
    }
    return bytes;
  }

  /** The newest `count` events, oldest first. */
  newest(count: number): EventEnvelope[] {
    return this.#slice(Math.max(this.#head, this.#events.length - count), this.#events.length);
  }

  /** Up to `count` events after the one with id `after` (a trimmed or unknown id: from the first later one). */
  after(after: string, count: number): EventEnvelope[] {
    const start = this.#firstIndex((id) => compareEventIds(id, after) > 0);
    return this.#slice(start, Math.min(start + count, this.#events.length));
  }

  /** Up to `count` events before the one with id `before`, oldest first. */
  before(before: string, count: number): EventEnvelope[] {
    const stop = this.#firstIndex((id) => compareEventIds(id, before) >= 0);
    return this.#slice(Math.max(this.#head, stop - count), stop);
  }

  /** The first index at or after the head whose id passes `test` (which holds from some point on), or the end. */
  #firstIndex(test: (id: string) => boolean): number {
    let lo = this.#head;
    let hi = this.#events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (test((this.#events[mid] as EventEnvelope).event_id)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  #slice(from: number, to: number): EventEnvelope[] {
    return this.#events.slice(from, to) as EventEnvelope[];
  }
}
