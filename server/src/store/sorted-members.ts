import type { RangeSlice, ScoreRange } from './store.ts';

const before = (a: readonly [number, string], score: number, member: string) =>
  a[0] < score || (a[0] === score && a[1] < member);

/**
 * A sorted set for the embedded stores, with Redis's order (by score, ties by member): kept as a sorted array so a
 * range's size and its first members cost a binary search, not a sort.
 */
export class SortedMembers {
  private readonly scores = new Map<string, number>();
  private readonly order: Array<[number, string]> = [];

  static from(entries: Iterable<readonly [string, number]>): SortedMembers {
    const set = new SortedMembers();
    for (const [member, score] of entries) set.add(member, score);
    return set;
  }

  get size(): number {
    return this.order.length;
  }

  /** The first position whose entry is not `below` the given one. */
  private search(below: (entry: readonly [number, string]) => boolean): number {
    let low = 0;
    let high = this.order.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (below(this.order[mid] as [number, string])) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private position(score: number, member: string): number {
    return this.search((entry) => before(entry, score, member));
  }

  add(member: string, score: number): void {
    if (this.scores.get(member) === score) return;
    this.remove(member);
    this.scores.set(member, score);
    this.order.splice(this.position(score, member), 0, [score, member]);
  }

  remove(member: string): void {
    const score = this.scores.get(member);
    if (score === undefined) return;
    this.scores.delete(member);
    this.order.splice(this.position(score, member), 1);
  }

  slice(range: ScoreRange, valueOf: (member: string) => string | undefined): RangeSlice {
    const from = this.search(([score]) => score < range.min);
    const to = this.search(([score]) => score <= range.max);
    return {
      count: to - from,
      first: this.order
        .slice(from, Math.min(to, from + range.limit))
        .map(([score, member]) => ({ member, score, value: valueOf(member) })),
    };
  }

  entries(): Array<[string, number]> {
    return this.order.map(([score, member]) => [member, score]);
  }
}
