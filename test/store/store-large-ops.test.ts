import type { FanIn } from '@planhub/server';
import { describe, expect } from 'vitest';
import { STORE_FIXTURE_KINDS } from '../helpers/stores.ts';
import { WS, event, storeTest } from './conformance-support.ts';

// Past Lua's 8,000-value unpack limit on Redis: sets of 10,000 members, hashes and sorted sets of 5,000 entries
// (10,000 values each), as a plan of 5,000 steps or a workspace of 10,000 tasks commits them.
const MEMBERS = 10_000;
const ENTRIES = 5_000;
const TOKEN = '@@fill-large@@';

const names = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const fields = (n: number) => Object.fromEntries(names(n, 'f').map((f, i) => [JSON.stringify(f), String(i)]));

/** A fan-in that fires at once (its set holds only `last`) and records ENTRIES outputs in one field set. */
const bigFanIn = (): FanIn => ({
  set: 'out:big',
  member: 'last',
  record: { hash: 'recv:big', fields: fields(ENTRIES) },
  then: {
    reads: [],
    writes: [{ key: 'big-parent', value: { received: TOKEN } }],
    ops: [{ op: 'srem', key: 's', members: names(MEMBERS, 'm') }],
    events: [{ ...event(2), event_type: 'step_unblocked', payload: { received_outputs: TOKEN } }],
    fills: [{ token: TOKEN, hash: 'recv:big', as: 'object' }],
  },
});

/** Variadic operations far past what one Lua unpack takes: every part of the commit applies, or none. */
describe.each(STORE_FIXTURE_KINDS)('the %s store’s large operations', (kind) => {
  const it = storeTest(kind);

  it('applies sadd, srem, hset, hdel, zadd, zrem and a fan-in record of 10,000 values whole', async ({ store }) => {
    const members = names(MEMBERS, 'm');
    const scores = Object.fromEntries(names(ENTRIES, 'z').map((m, i) => [m, i]));
    await store.commit(WS, {
      reads: [],
      writes: [],
      ops: [{ op: 'sadd', key: 'out:big', members: ['last'] }],
      events: [],
    });
    const first = await store.commit(WS, {
      reads: [],
      writes: [{ key: 'doc', value: { n: 1 } }],
      ops: [
        { op: 'sadd', key: 's', members, max: MEMBERS },
        { op: 'sadd', key: 'gone', members },
        { op: 'hset', key: 'h', fields: fields(ENTRIES) },
        { op: 'zadd', key: 'z', members: scores },
      ],
      events: [event(1)],
      request: { agent_id: 'agent-1', request_id: 'big-1', answer: { done: 1 }, ttl_ms: 60_000, keep: 10 },
    });
    expect(first).toMatchObject({ ok: true, events: [{ event_type: 'step_added' }] });
    const read = await store.loadCollections(WS, { sets: ['s'], hashes: ['h'] });
    expect(read.sets[0]).toHaveLength(MEMBERS);
    expect(read.hashes[0]).toEqual(fields(ENTRIES));
    const ranks = async () =>
      (await store.loadWith(WS, [], { ranges: [{ key: 'z', ranges: [{ min: 0, max: ENTRIES, limit: ENTRIES }] }] }))
        .ranges[0]?.[0];
    expect((await ranks())?.first.map((m) => m.member)).toEqual(Object.keys(scores));
    expect(await store.requestAnswer(WS, 'agent-1', 'big-1')).toMatchObject({ answer: { done: 1 } });

    // The removals, and a fan-in that records 5,000 outputs and fires: its writes, ops and event apply too.
    const second = await store.commit(WS, {
      reads: [],
      writes: [],
      ops: [
        { op: 'srem', key: 'gone', members },
        { op: 'hdel', key: 'h', fields: Object.keys(fields(ENTRIES)) },
        { op: 'zrem', key: 'z', members: Object.keys(scores) },
      ],
      fanIns: [bigFanIn()],
      events: [],
      request: { agent_id: 'agent-1', request_id: 'big-2', answer: { done: 2 }, ttl_ms: 60_000, keep: 10 },
    });
    expect(second).toMatchObject({ ok: true, fired: [true] });
    const expected = Object.fromEntries(names(ENTRIES, 'f').map((f, i) => [f, i]));
    const fired = second.ok ? second.events.map((e) => e.payload.received_outputs) : [];
    expect(fired).toHaveLength(1);
    expect(fired[0]).toEqual(expected);
    expect((await store.load(WS, ['big-parent']))[0]?.value).toEqual({ received: expected });
    const after = await store.loadCollections(WS, { sets: ['s', 'gone'], hashes: ['h', 'recv:big'] });
    expect(after.sets).toEqual([[], []]);
    expect(after.hashes[0]).toEqual({});
    expect(Object.keys(after.hashes[1] ?? {})).toHaveLength(ENTRIES);
    expect((await ranks())?.count).toBe(0);
    expect(await store.requestAnswer(WS, 'agent-1', 'big-2')).toMatchObject({ answer: { done: 2 } });
  });
});
