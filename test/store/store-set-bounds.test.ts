import type { Store } from '@planhub/server';
import { describe, expect } from 'vitest';
import { STORE_FIXTURE_KINDS } from '../helpers/stores.ts';
import { rounds } from '../helpers/stress.ts';
import { WS, collect, event, storeTest } from './conformance-support.ts';

/** A commit that writes a document, announces an event and adds `members` to the set `s` bounded by `max`. */
const boundedAdd = (store: Store, members: string[], max: number, doc = 'doc') =>
  store.commit(WS, {
    reads: [],
    writes: [{ key: doc, value: { members } }],
    ops: [
      { op: 'incr', key: 'n', by: 1 },
      { op: 'sadd', key: 's', members, max },
    ],
    events: [event(1)],
  });

/** A set's bound (an sadd's `max`): the same refusal on every store, checked before anything is written. */
describe.each(STORE_FIXTURE_KINDS)('the %s store’s bounded sets', (kind) => {
  const it = storeTest(kind);

  it('refuses a commit that would take a set past its bound, writing nothing of it', async ({ store }) => {
    expect(await boundedAdd(store, ['a', 'b'], 3)).toMatchObject({ ok: true });
    const { seen, off } = collect(store);
    const before = await store.readEvents(WS, { count: 100 });
    expect(await boundedAdd(store, ['c', 'd'], 3, 'other')).toEqual({
      ok: false,
      reason: 'bound',
      key: 's',
      size: 2,
      added: 2,
      max: 3,
    });
    off();
    const read = await store.loadCollections(WS, { sets: ['s'], counters: ['n'] });
    expect(read.sets.map((s) => [...s].sort())).toEqual([['a', 'b']]);
    expect(read.counters).toEqual([1]);
    expect((await store.load(WS, ['other']))[0]?.value).toBeUndefined();
    expect(await store.readEvents(WS, { count: 100 })).toEqual(before);
    expect(seen).toEqual([]);
  });

  it('counts only members not in the set yet, each once, and never refuses adding none', async ({ store }) => {
    expect(await boundedAdd(store, ['a', 'b', 'c'], 3)).toMatchObject({ ok: true });
    // Already members, or the same new member twice: at the bound, yet nothing new past it.
    expect(await boundedAdd(store, ['a', 'c'], 3)).toMatchObject({ ok: true });
    expect(await boundedAdd(store, ['d', 'd'], 4)).toMatchObject({ ok: true });
    expect(await boundedAdd(store, ['a'], 2)).toMatchObject({ ok: true });
    expect(await boundedAdd(store, ['e', 'a'], 4)).toMatchObject({
      ok: false,
      reason: 'bound',
      size: 4,
      added: 1,
      max: 4,
    });
    const read = await store.loadCollections(WS, { sets: ['s'] });
    expect(read.sets.map((s) => [...s].sort())).toEqual([['a', 'b', 'c', 'd']]);
  });

  it('never lets racing commits, from two nodes where the store has them, take a set past its bound', async ({
    fixture,
    store,
  }) => {
    // One node per memory store and per file store directory; Redis serves several.
    const other = kind === 'redis' || kind === 'redis-cluster' ? fixture.open() : store;
    const max = 7;
    for (let round = 0; round < rounds(5); round++) {
      const key = `racing-${round}`;
      const adds = Array.from({ length: max * 3 }, (_, i) =>
        (i % 2 === 0 ? store : other).commit(WS, {
          reads: [],
          writes: [],
          ops: [{ op: 'sadd', key, members: [`m${i}`], max }],
          events: [],
        }),
      );
      const outcomes = await Promise.all(adds);
      expect(outcomes.filter((o) => o.ok)).toHaveLength(max);
      for (const refused of outcomes.filter((o) => !o.ok))
        expect(refused).toMatchObject({ reason: 'bound', key, size: max, added: 1, max });
      expect((await other.loadCollections(WS, { sets: [key] })).sets[0]).toHaveLength(max);
    }
  });
});
