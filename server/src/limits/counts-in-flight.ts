/** One agent's counts out at once on this node, and the calls waiting for one of them to answer. */
interface Entry {
  out: number;
  waiting: Array<() => void>;
}

/**
 * Bounds the call-budget counts one agent has out at once on a node (call-limiter.ts). A call past the bound waits
 * for a count to answer, then decides again.
 */
export class CountsInFlight {
  private readonly byKey = new Map<string, Entry>();

  constructor(private readonly max: number) {}

  /** Undefined when `key` may count now (it then holds one place until release); else a promise to wait on first. */
  take(key: string): Promise<void> | undefined {
    let entry = this.byKey.get(key);
    if (entry === undefined) this.byKey.set(key, (entry = { out: 0, waiting: [] }));
    if (entry.out < this.max) {
      entry.out += 1;
      return undefined;
    }
    const waiting = entry.waiting;
    return new Promise<void>((resolve) => waiting.push(resolve));
  }

  /**
   * A count of `key` answered (or failed): its place goes, and every waiting call decides again. All of them, not
   * one: most are then answered without a count (from the points it took ahead, or its refusal), so none would pass
   * the wake-up on; those that still need a count take the free places or wait again.
   */
  release(key: string): void {
    const entry = this.byKey.get(key);
    if (entry === undefined) return;
    entry.out -= 1;
    const waiting = entry.waiting.splice(0);
    if (entry.out === 0) this.byKey.delete(key);
    for (const wake of waiting) wake();
  }
}
