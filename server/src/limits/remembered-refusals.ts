/** Keys remembered at once; past it the memory starts again empty (each key then costs one more count). */
const MAX_KEYS = 10_000;

/** One agent's last refusal seen by this node. */
interface Refused {
  /** When the refused window ends, at the latest (epoch ms): the first refusal seen of that window says. */
  end: number;
  /** Calls are refused here until then: `end`, or earlier once a count admitted one. */
  until: number;
}

/**
 * The agents this node's counts found past their budget, each until the window of that refusal ends. A fixed
 * window's count only grows until it ends, so every later count in it would be refused too: the node refuses those
 * calls itself instead of asking the shared count again. Asking cost one Redis round trip per refused call: one
 * flooding socket queued 100,000s of commands on the node's one command connection, ahead of other tenants' calls
 * and of /readyz's PING, which timed out for 26 s.
 *
 * It also keeps the refusal warning to one per agent, window and node: a refusal is its window's first unless it
 * ends within half a window of the one remembered. Refusals of one window that were in flight together, or answered
 * late, name ends a round trip apart at most; the next window's end comes a whole window later. Until round 30 the
 * flag lived on a window object that such answers could replace: 321 warnings in 15 s, 45 in one millisecond.
 */
export class RememberedRefusals {
  private readonly byKey = new Map<string, Refused>();

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys = MAX_KEYS,
  ) {}

  /** When `key`'s remembered refusal ends (epoch ms), or undefined if none holds now. */
  until(key: string): number | undefined {
    const refused = this.byKey.get(key);
    if (refused === undefined) return undefined;
    const now = Date.now();
    if (now < refused.until) return refused.until;
    // Kept a window longer than it refuses: a refusal of its window answered late is still known as no first.
    if (now >= refused.end + this.windowMs) this.byKey.delete(key);
    return undefined;
  }

  /**
   * Remembers that `key` is refused until `end`, an end no later than its window's; true when this is the first
   * refusal seen of that window (the one to log).
   */
  remember(key: string, end: number): boolean {
    // Answered after its window ended (a node so loaded that counts come back seconds late): it refuses nothing
    // more, and its window's warning, if any, was due when it was first seen. Under a 40-socket flood such late
    // answers of past windows each looked like a window's first refusal: 50 warnings in one millisecond.
    if (end <= Date.now()) return false;
    this.until(key);
    const known = this.byKey.get(key);
    if (known !== undefined && end - known.end < this.windowMs / 2) {
      // The same window: the earlier end is kept, so no call is refused here that the count might admit.
      known.until = Math.min(known.until, end);
      return false;
    }
    if (known === undefined && this.byKey.size >= this.maxKeys) this.byKey.clear();
    this.byKey.set(key, { end, until: end });
    return true;
  }

  /** A count admitted a call: nothing remembered refuses any more (what it knew was of another window). */
  forget(key: string): void {
    const refused = this.byKey.get(key);
    if (refused !== undefined) refused.until = Math.min(refused.until, Date.now());
  }
}
