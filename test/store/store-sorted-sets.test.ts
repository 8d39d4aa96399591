import type { StoreOp } from '@planhub/server';
import { describe, expect } from 'vitest';
import { STORE_FIXTURE_KINDS } from '../helpers/stores.ts';
import { WS, storeTest } from './conformance-support.ts';

/** Sorted sets (a plan's steps ranked by status): the same order and ranges on every store. */
describe.each(STORE_FIXTURE_KINDS)('the %s store’s sorted sets', (kind) => {
  const it = storeTest(kind);

  it('keeps sorted sets in score order and reads ranges of them with their values, in one snapshot', async ({
    store,
  }) => {
    const commit = (ops: StoreOp[]) => store.commit(WS, { reads: [], writes: [], ops, events: [] });
    await commit([
      { op: 'zadd', key: 'z', members: { c: 3, a: 1, b: 2, e: 12, d: 11, x: 2 } },
      { op: 'hset', key: 'v', fields: { a: 'A', e: 'E' } },
    ]);
    // A member added again moves (one write changes its range); a removed one and an absent one leave no trace.
    await commit([
      { op: 'zadd', key: 'z', members: { c: 13 } },
      { op: 'zrem', key: 'z', members: ['x', 'missing'] },
    ]);
    const low = { min: 0, max: 9, limit: 5 };
    const high = { min: 10, max: 19, limit: 2 };
    const read = await store.loadWith(WS, ['doc'], {
      ranges: [
        { key: 'z', ranges: [low, high, { min: 20, max: 29, limit: 3 }], values: 'v' },
        { key: 'z', ranges: [{ min: 0, max: 99, limit: 0 }] },
        { key: 'none', ranges: [low] },
      ],
    });
    expect(read.ranges).toEqual([
      [
        {
          count: 2,
          first: [
            { member: 'a', score: 1, value: 'A' },
            { member: 'b', score: 2, value: undefined },
          ],
        },
        {
          count: 3,
          first: [
            { member: 'd', score: 11, value: undefined },
            { member: 'e', score: 12, value: 'E' },
          ],
        },
        { count: 0, first: [] },
      ],
      [{ count: 5, first: [] }],
      [{ count: 0, first: [] }],
    ]);
    // Scores beyond 2^32, as plans' steps are scored, keep their order and exact value.
    const big = 5 * 2 ** 32;
    await commit([{ op: 'zadd', key: 'big', members: { late: big + 7, early: big + 2 } }]);
    const bigRead = await store.loadWith(WS, [], {
      ranges: [{ key: 'big', ranges: [{ min: big, max: big + 2 ** 32 - 1, limit: 5 }] }],
    });
    expect(bigRead.ranges[0]?.[0]?.first.map((m) => [m.member, m.score])).toEqual([
      ['early', big + 2],
      ['late', big + 7],
    ]);
    await commit([
      { op: 'zrem', key: 'big', members: ['early'] },
      { op: 'del', kind: 'zset', key: 'z' },
    ]);
    const after = await store.loadWith(WS, [], {
      ranges: [
        { key: 'z', ranges: [{ min: 0, max: 99, limit: 9 }] },
        { key: 'big', ranges: [{ min: 0, max: 2 * big, limit: 9 }] },
      ],
    });
    expect(after.ranges.map((r) => r[0]?.first.map((m) => m.member))).toEqual([[], ['late']]);
  });
});
