import type { RangeRead, RangeSlice } from './store.ts';

/** Whether two range reads ask the same (compared field by field: this runs several times per call). */
const sameRead = (a: RangeRead, b: RangeRead): boolean =>
  a === b ||
  (a.key === b.key &&
    a.values === b.values &&
    a.ranges.length === b.ranges.length &&
    a.ranges.every((r, i) => {
      const o = b.ranges[i];
      return o !== undefined && r.min === o.min && r.max === o.max && r.limit === o.limit;
    }));

/**
 * The sorted-set ranges one attempt has read, so that it reads each once. Only the latest read of a sorted set is
 * kept: a call asks one set for one thing.
 */
export class RangeReads {
  private readonly bySet = new Map<string, { read: RangeRead; slices: Promise<RangeSlice[]> }>();

  /** The slices of `read` if the attempt read them. */
  get(read: RangeRead): Promise<RangeSlice[]> | undefined {
    const entry = this.bySet.get(read.key);
    return entry && sameRead(entry.read, read) ? entry.slices : undefined;
  }

  set(read: RangeRead, slices: Promise<RangeSlice[]>): void {
    this.bySet.set(read.key, { read, slices });
  }
}
