import type { FanIn, Store, StoreOp } from '@planhub/server';
import { describe, expect } from 'vitest';
import { STORE_FIXTURE_KINDS } from '../helpers/stores.ts';
import { rounds } from '../helpers/stress.ts';
import { WS, collect, event, storeTest } from './conformance-support.ts';
import { eventually } from '../helpers/eventually.ts';

const TOKEN = '@@fill-received@@';

/** A fan-in as a completion of `member` would commit it: record its output, and when last, write and announce. */
const completion = (member: string, output: unknown): FanIn => ({
  set: 'out:parent',
  member,
  record: { hash: 'recv:parent', fields: { [JSON.stringify(member)]: JSON.stringify(output) } },
  then: {
    reads: [],
    writes: [{ key: 'parent', value: { status: 'pending', received: TOKEN } }],
    ops: [{ op: 'del', kind: 'hash', key: 'recv:parent' }],
    events: [{ ...event(1), event_type: 'step_unblocked', payload: { received_outputs: TOKEN } }],
    fills: [{ token: TOKEN, hash: 'recv:parent', as: 'object' }],
  },
});

const outstanding = async (store: Store, members: string[]) => {
  const outcome = await store.commit(WS, {
    reads: [],
    writes: [{ key: 'parent', value: { status: 'blocked' } }],
    ops: [{ op: 'sadd', key: 'out:parent', members }],
    events: [],
  });
  expect(outcome.ok).toBe(true);
};

/** Sets, hashes, counters and the fan-in conditional: the same semantics on every store. */
describe.each(STORE_FIXTURE_KINDS)('the %s store’s commutative operations', (kind) => {
  const it = storeTest(kind);

  it('adds and removes set members, sets hash fields and counts, all read back in one call', async ({ store }) => {
    const outcome = await store.commit(WS, {
      reads: [],
      writes: [],
      ops: [
        { op: 'sadd', key: 's', members: ['a', 'b', 'c'] },
        { op: 'srem', key: 's', members: ['b', 'missing'] },
        { op: 'hset', key: 'h', fields: { x: '1', y: '"two"' } },
        { op: 'incr', key: 'n', by: 1 },
        { op: 'incr', key: 'n', by: 4 },
      ],
      events: [],
    });
    expect(outcome).toMatchObject({ ok: true, counters: [1, 5] });
    const read = await store.loadCollections(WS, { sets: ['s', 'none'], hashes: ['h', 'none'], counters: ['n', 'z'] });
    expect(read.sets.map((s) => [...s].sort())).toEqual([['a', 'c'], []]);
    expect(read.hashes).toEqual([{ x: '1', y: '"two"' }, {}]);
    expect(read.counters).toEqual([5, 0]);
    await store.commit(WS, { reads: [], writes: [], ops: [{ op: 'del', kind: 'set', key: 's' }], events: [] });
    expect((await store.loadCollections(WS, { sets: ['s'] })).sets).toEqual([[]]);
  });

  it('reads documents and whole hashes in one snapshot, never half of a commit', async ({ store }) => {
    const commit = (i: number) =>
      store.commit(WS, {
        reads: [],
        writes: [{ key: 'doc', value: { i } }],
        ops: [{ op: 'hset', key: 'h', fields: { i: String(i), [`f${i}`]: 'x' } }],
        events: [],
      });
    await commit(0);
    const first = await store.loadWith(WS, ['doc', 'missing'], { hashes: ['h', 'none'] });
    expect(first.docs.map((d) => d.value)).toEqual([{ i: 0 }, undefined]);
    expect(first.docs.map((d) => d.version > 0)).toEqual([true, false]);
    expect(first.hashes).toEqual([{ i: '0', f0: 'x' }, {}]);
    // Reads racing commits: each sees the document and the hash of the same commit.
    const n = rounds(40);
    const writes: Array<Promise<unknown>> = [];
    const reads: Array<ReturnType<Store['loadWith']>> = [];
    for (let i = 1; i <= n; i++) {
      writes.push(commit(i));
      reads.push(store.loadWith(WS, ['doc'], { hashes: ['h'] }));
    }
    await Promise.all(writes);
    for (const read of await Promise.all(reads)) {
      const seen = (read.docs[0]?.value as { i: number }).i;
      expect(read.hashes[0]?.i).toBe(String(seen));
      expect(read.hashes[0]?.[`f${seen}`]).toBe('x');
    }
    const last = await store.loadWith(WS, ['doc'], { hashes: ['h'] });
    expect(last.docs[0]?.value).toEqual({ i: n });
    expect(Object.keys(last.hashes[0] ?? {})).toHaveLength(n + 2);
  });

  it('removes hash fields, ignores absent ones, and drops a hash whose last field goes', async ({ store }) => {
    const commit = (ops: StoreOp[]) => store.commit(WS, { reads: [], writes: [], ops, events: [] });
    await commit([
      { op: 'hset', key: 'h', fields: { a: '1', b: '2', c: '3' } },
      { op: 'hset', key: 'other', fields: { a: '1' } },
    ]);
    expect(await commit([{ op: 'hdel', key: 'h', fields: ['a', 'missing'] }])).toMatchObject({ ok: true });
    const read = async () => (await store.loadCollections(WS, { hashes: ['h', 'other'] })).hashes;
    expect(await read()).toEqual([{ b: '2', c: '3' }, { a: '1' }]);
    // In one commit: a field set and removed again is gone, and an emptied hash reads as no hash.
    await commit([
      { op: 'hset', key: 'h', fields: { d: '4' } },
      { op: 'hdel', key: 'h', fields: ['b', 'c', 'd'] },
      { op: 'hdel', key: 'none', fields: ['x'] },
    ]);
    expect(await read()).toEqual([{}, { a: '1' }]);
    await commit([{ op: 'hset', key: 'h', fields: { e: '5' } }]);
    expect(await read()).toEqual([{ e: '5' }, { a: '1' }]);
  });

  it('hands out a distinct counter value to every one of many concurrent increments', async ({ store }) => {
    const n = rounds(20);
    const outcomes = await Promise.all(
      Array.from({ length: n }, () =>
        store.commit(WS, { reads: [], writes: [], ops: [{ op: 'incr', key: 'ids', by: 1 }], events: [] }),
      ),
    );
    const values = outcomes.map((o) => (o.ok ? o.counters?.[0] : undefined));
    expect(new Set(values).size).toBe(n);
    expect(Math.max(...values.map(Number))).toBe(n);
  });

  it('fires a fan-in only for the removal that empties the set, with every recorded output', async ({ store }) => {
    await outstanding(store, ['a', 'b', 'c']);
    const { seen, off } = collect(store);
    const first = await store.commit(WS, { reads: [], writes: [], fanIns: [completion('a', { n: 1 })], events: [] });
    expect(first).toEqual({ ok: true, events: [], fired: [false] });
    expect((await store.load(WS, ['parent']))[0]?.value).toEqual({ status: 'blocked' });
    await store.commit(WS, { reads: [], writes: [], fanIns: [completion('c', [1, 'x'])], events: [] });
    const last = await store.commit(WS, { reads: [], writes: [], fanIns: [completion('b', null)], events: [] });
    const received = { a: { n: 1 }, b: null, c: [1, 'x'] };
    expect(last.ok && last.events.map((e) => e.payload)).toEqual([{ received_outputs: received }]);
    await eventually(() => expect(seen.map((e) => e.payload)).toEqual([{ received_outputs: received }]));
    off();
    expect((await store.load(WS, ['parent']))[0]?.value).toEqual({ status: 'pending', received });
    expect((await store.loadCollections(WS, { sets: ['out:parent'], hashes: ['recv:parent'] })).hashes).toEqual([{}]);
  });

  it('unblocks exactly once when every member completes at the same moment, each on its first attempt', async ({
    fixture,
  }) => {
    // Three nodes on the same data for Redis; the memory store is one node by nature.
    const nodes = fixture.kind === 'redis' ? [fixture.open(), fixture.open(), fixture.open()] : [fixture.open()];
    const [first] = nodes;
    if (!first) throw new Error('no store');
    const k = rounds(10);
    const members = Array.from({ length: k }, (_, i) => `m${i}`);
    await outstanding(first, members);
    const outcomes = await Promise.all(
      members.map((m, i) =>
        (nodes[i % nodes.length] ?? first).commit(WS, {
          reads: [],
          writes: [],
          fanIns: [completion(m, { i })],
          events: [],
        }),
      ),
    );
    expect(outcomes.every((o) => o.ok)).toBe(true);
    const fired = outcomes.flatMap((o) => (o.ok ? o.events : []));
    expect(fired).toHaveLength(1);
    expect(Object.keys(fired[0]?.payload.received_outputs as object).sort()).toEqual([...members].sort());
  });

  it('does not revive a waiting step whose set was deleted, and records nothing for it', async ({ store }) => {
    await outstanding(store, ['a', 'b']);
    await store.commit(WS, { reads: [], writes: [], ops: [{ op: 'del', kind: 'set', key: 'out:parent' }], events: [] });
    const late = await store.commit(WS, { reads: [], writes: [], fanIns: [completion('a', 1)], events: [] });
    expect(late).toEqual({ ok: true, events: [], fired: [false] });
    expect((await store.loadCollections(WS, { hashes: ['recv:parent'] })).hashes).toEqual([{}]);
    expect((await store.load(WS, ['parent']))[0]?.value).toEqual({ status: 'blocked' });
  });

  it('checks a fan-in’s reads only when it fires, and then refuses the whole commit if one is stale', async ({
    store,
  }) => {
    await outstanding(store, ['a', 'b']);
    const guarded = (member: string): FanIn => {
      const base = completion(member, member);
      return { ...base, then: { ...base.then, reads: [{ key: 'parent', version: 1 }] } };
    };
    // The parent changes while the fan-in is outstanding: a non-last removal does not care.
    await store.commit(WS, { reads: [], writes: [{ key: 'parent', value: { status: 'blocked', v: 2 } }], events: [] });
    expect(await store.commit(WS, { reads: [], writes: [], fanIns: [guarded('a')], events: [] })).toMatchObject({
      ok: true,
    });
    const stale = await store.commit(WS, {
      reads: [],
      writes: [{ key: 'other', value: 1 }],
      fanIns: [guarded('b')],
      events: [event(2)],
    });
    expect(stale).toEqual({ ok: false, reason: 'conflict' });
    expect(await store.load(WS, ['other'])).toEqual([{ value: undefined, version: 0 }]);
    expect((await store.loadCollections(WS, { sets: ['out:parent'] })).sets).toEqual([['b']]);
  });

  it('fires once when one commit removes the last two members of a set', async ({ store }) => {
    await outstanding(store, ['a', 'b']);
    const both = await store.commit(WS, {
      reads: [],
      writes: [],
      fanIns: [completion('a', 1), completion('b', 2)],
      events: [],
    });
    expect(both.ok && both.events.map((e) => e.payload)).toEqual([{ received_outputs: { a: 1, b: 2 } }]);
  });

  it('completes the remembered answer with whether each fan-in fired', async ({ store }) => {
    await outstanding(store, ['a', 'b']);
    const answered = (member: string): FanIn => ({
      ...completion(member, member),
      answer: { token: `@@answer-${member}@@`, value: { unblocked: member } },
    });
    const request = (id: string, member: string) => ({
      agent_id: 'agent-1',
      request_id: id,
      answer: { list: [`@@answer-${member}@@`] },
      ttl_ms: 60_000,
    });
    const first = await store.commit(WS, {
      reads: [],
      writes: [],
      fanIns: [answered('a')],
      events: [],
      request: request('r1', 'a'),
    });
    const last = await store.commit(WS, {
      reads: [],
      writes: [],
      fanIns: [answered('b')],
      events: [],
      request: request('r2', 'b'),
    });
    expect(first).toMatchObject({ ok: true, fired: [false] });
    expect(last).toMatchObject({ ok: true, fired: [true] });
    expect(await store.requestAnswer(WS, 'agent-1', 'r1')).toEqual({ answer: { list: [null] } });
    expect(await store.requestAnswer(WS, 'agent-1', 'r2')).toEqual({ answer: { list: [{ unblocked: 'b' }] } });
  });
});
