import type { Store, StoreOp } from '@planhub/server';
import { describe, expect } from 'vitest';
import { STORE_FIXTURE_KINDS } from '../helpers/stores.ts';
import { rounds } from '../helpers/stress.ts';
import { WS, storeTest } from './conformance-support.ts';

const commitOps = (store: Store, ops: StoreOp[], reads: Array<{ key: string; version: number }> = []) =>
  store.commit(WS, { reads, writes: [], ops, events: [] });

const version = async (store: Store, key: string) => (await store.load(WS, [key]))[0];

/**
 * `bump`: a document's version moves, its value stays. Bumps commute (never conflict with each other), while a commit
 * that read the document checked conflicts with any bump since: the same on every store.
 */
describe.each(STORE_FIXTURE_KINDS)('the %s store’s document bumps', (kind) => {
  const it = storeTest(kind);

  it('gives a missing document a version without a value, and a written one keeps its value', async ({ store }) => {
    expect(await commitOps(store, [{ op: 'bump', key: 'clock' }])).toMatchObject({ ok: true });
    expect(await version(store, 'clock')).toEqual({ value: undefined, version: 1 });
    await store.commit(WS, {
      reads: [{ key: 'doc', version: 0 }],
      writes: [{ key: 'doc', value: { a: 1 } }],
      events: [],
    });
    await commitOps(store, [{ op: 'bump', key: 'doc' }]);
    expect(await version(store, 'doc')).toEqual({ value: { a: 1 }, version: 2 });
    // A write after bumps continues from their version; a deletion forgets it.
    const written = await store.commit(WS, {
      reads: [{ key: 'clock', version: 1 }],
      writes: [{ key: 'clock', value: { b: 2 } }],
      events: [],
    });
    expect(written.ok).toBe(true);
    expect(await version(store, 'clock')).toEqual({ value: { b: 2 }, version: 2 });
    await store.commit(WS, { reads: [{ key: 'doc', version: 2 }], writes: [{ key: 'doc', value: null }], events: [] });
    expect(await version(store, 'doc')).toEqual({ value: undefined, version: 0 });
  });

  it('never conflicts with another bump: every one of many at once commits on its first attempt', async ({
    fixture,
  }) => {
    const nodes = kind === 'redis' || kind === 'redis-cluster' ? [fixture.open(), fixture.open()] : [fixture.open()];
    const n = rounds(30);
    const outcomes = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        commitOps(nodes[i % nodes.length] as Store, [
          { op: 'bump', key: 'clock' },
          { op: 'hset', key: 'members', fields: { [`m${i}`]: String(i) } },
        ]),
      ),
    );
    expect(outcomes.every((o) => o.ok)).toBe(true);
    const read = await (nodes[0] as Store).loadWith(WS, ['clock'], { hashes: ['members'] });
    expect(read.docs[0]).toEqual({ value: undefined, version: n });
    expect(Object.keys(read.hashes[0] ?? {})).toHaveLength(n);
  });

  it('makes a commit that read the document before the bump conflict, and one that read it after apply', async ({
    store,
  }) => {
    await commitOps(store, [{ op: 'bump', key: 'clock' }]);
    const seen = await version(store, 'clock');
    await commitOps(store, [{ op: 'bump', key: 'clock' }]);
    const stale = await store.commit(WS, {
      reads: [{ key: 'clock', version: seen?.version ?? 0 }],
      writes: [{ key: 'clock', value: null }],
      events: [],
    });
    expect(stale).toEqual({ ok: false, reason: 'conflict' });
    expect(await version(store, 'clock')).toEqual({ value: undefined, version: 2 });
    // A document never bumped nor written conflicts with its first bump too (read as version 0).
    expect(await commitOps(store, [{ op: 'incr', key: 'n', by: 1 }], [{ key: 'fresh', version: 0 }])).toMatchObject({
      ok: true,
    });
    await commitOps(store, [{ op: 'bump', key: 'fresh' }]);
    expect(await commitOps(store, [{ op: 'incr', key: 'n', by: 1 }], [{ key: 'fresh', version: 0 }])).toEqual({
      ok: false,
      reason: 'conflict',
    });
    const current = await store.commit(WS, {
      reads: [{ key: 'clock', version: 2 }],
      writes: [{ key: 'clock', value: null }],
      events: [],
    });
    expect(current.ok).toBe(true);
    expect(await version(store, 'clock')).toEqual({ value: undefined, version: 0 });
  });

  it('checks a read before its own commit’s bump of the same document', async ({ store }) => {
    await commitOps(store, [{ op: 'bump', key: 'clock' }]);
    // Read at 1, bumped by this very commit: the check sees 1, then the version moves to 2.
    expect(await commitOps(store, [{ op: 'bump', key: 'clock' }], [{ key: 'clock', version: 1 }])).toMatchObject({
      ok: true,
    });
    expect(await commitOps(store, [{ op: 'bump', key: 'clock' }], [{ key: 'clock', version: 1 }])).toEqual({
      ok: false,
      reason: 'conflict',
    });
    expect(await version(store, 'clock')).toEqual({ value: undefined, version: 2 });
  });
});
