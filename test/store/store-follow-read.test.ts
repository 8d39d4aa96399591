import type { Store } from '@planhub/server';
import { describe, expect } from 'vitest';
import { STORE_FIXTURE_KINDS } from '../helpers/stores.ts';
import { WS, storeTest } from './conformance-support.ts';

/** `['plan:', 1]` and `['step:', 1, ':', 2]`: a waiter's plan and step, from its field [agent, plan, step]. */
const PATTERNS = [
  ['plan:', 1],
  ['step:', 1, ':', 2],
];

const write = async (store: Store, docs: Record<string, unknown>, fields: Record<string, string>) => {
  const outcome = await store.commit(WS, {
    reads: [],
    writes: Object.entries(docs).map(([key, value]) => ({ key, value })),
    ops: [{ op: 'hset', key: 'waiters', fields }],
    events: [],
  });
  expect(outcome.ok).toBe(true);
};

const byKey = (followed: Array<{ key: string; doc: { value: unknown; version: number } }> | undefined) =>
  Object.fromEntries((followed ?? []).map(({ key, doc }) => [key, doc]));

/** A load's follow read: the documents a hash's fields name, read in the same snapshot. */
describe.each(STORE_FIXTURE_KINDS)('the %s store’s follow reads', (kind) => {
  const it = storeTest(kind);

  it('reads the documents each field names, missing ones as version 0, beside the hash itself', async ({ store }) => {
    await write(
      store,
      { 'plan:p1': { title: 'one' }, 'step:p1:s1': { n: 1 }, 'plan:p2': { title: 'two' } },
      {
        [JSON.stringify(['a', 'p1', 's1'])]: '1',
        // p2's step was never written: its header is found, its step is missing.
        [JSON.stringify(['b', 'p2', 's9'])]: '1',
      },
    );
    const read = await store.loadWith(WS, ['plan:p1'], {
      hashes: ['waiters'],
      follow: [{ hash: 'waiters', keys: PATTERNS }],
    });
    expect(read.docs[0]).toEqual({ value: { title: 'one' }, version: 1 });
    expect(Object.keys(read.hashes[0] ?? {})).toHaveLength(2);
    expect(read.followed).toHaveLength(4);
    expect(byKey(read.followed)).toEqual({
      'plan:p1': { value: { title: 'one' }, version: 1 },
      'step:p1:s1': { value: { n: 1 }, version: 1 },
      'plan:p2': { value: { title: 'two' }, version: 1 },
      'step:p2:s9': { value: undefined, version: 0 },
    });
    // Each field's keys in the order of the patterns.
    const keys = (read.followed ?? []).map((f) => f.key);
    expect(keys.indexOf('step:p1:s1')).toBe(keys.indexOf('plan:p1') + 1);
  });

  it('names nothing by a field that is not a JSON array of strings where a pattern looks', async ({ store }) => {
    await write(
      store,
      { 'plan:p1': { ok: true }, 'step:p1:s1': { ok: true } },
      {
        'not json': '1',
        [JSON.stringify({ 1: 'p1', 2: 's1' })]: '1',
        [JSON.stringify('p1')]: '1',
        [JSON.stringify(['a', 7, 's1'])]: '1',
        [JSON.stringify(['a', 'p1'])]: '1',
      },
    );
    const read = await store.loadWith(WS, [], { hashes: ['waiters'], follow: [{ hash: 'waiters', keys: PATTERNS }] });
    expect(Object.keys(read.hashes[0] ?? {})).toHaveLength(5);
    // Only ['a', 'p1'] has a string at index 1 (its plan); none has one at index 2.
    expect(byKey(read.followed)).toEqual({ 'plan:p1': { value: { ok: true }, version: 1 } });
  });

  it('follows an empty or missing hash to nothing, and answers no followed without a follow read', async ({
    store,
  }) => {
    const empty = await store.loadWith(WS, [], { hashes: ['none'], follow: [{ hash: 'none', keys: PATTERNS }] });
    expect(empty.followed).toEqual([]);
    await write(store, { 'plan:p1': {} }, { [JSON.stringify(['a', 'p1', 's1'])]: '1' });
    expect('followed' in (await store.loadWith(WS, [], { hashes: ['waiters'] }))).toBe(false);
  });

  it('refuses a follow read of a hash the load does not read, as every store kind does', async ({ store }) => {
    await expect(
      store.loadWith(WS, [], { hashes: ['other'], follow: [{ hash: 'waiters', keys: PATTERNS }] }),
    ).rejects.toThrow(/names the hash waiters, which the load does not read/);
  });

  it('never shows half of a commit: the followed documents are of the hash’s snapshot', async ({ store }) => {
    // Each commit adds a waiter and writes its plan, at once; every read must find every named plan.
    const commits = Array.from({ length: 20 }, (_, i) =>
      store.commit(WS, {
        reads: [],
        writes: [{ key: `plan:p${i}`, value: { i } }],
        ops: [{ op: 'hset', key: 'waiters', fields: { [JSON.stringify(['a', `p${i}`, 's'])]: '1' } }],
        events: [],
      }),
    );
    const reads = Array.from({ length: 20 }, () =>
      store.loadWith(WS, [], { hashes: ['waiters'], follow: [{ hash: 'waiters', keys: [['plan:', 1]] }] }),
    );
    const [outcomes, loaded] = await Promise.all([Promise.all(commits), Promise.all(reads)]);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    for (const read of loaded) {
      const named = Object.keys(read.hashes[0] ?? {}).length;
      expect(read.followed).toHaveLength(named);
      expect((read.followed ?? []).every((f) => f.doc.version === 1)).toBe(true);
    }
  });
});
