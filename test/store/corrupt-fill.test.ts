import type { Commit, FanIn, Store } from '@planhub/server';
import { describe, expect } from 'vitest';
import { event, storeTest, WS } from './conformance-support.ts';

const TOKEN = '@@fill-outputs@@';
const SET = 'out:p:step_2';
const HASH = 'recv:p:step_2';

/** The fan-in that unblocks a waiting step: its fill splices the received outputs into a document and an event. */
const unblock = (member: string, as: 'object' | 'keys' = 'object'): FanIn => ({
  set: SET,
  member,
  record: { hash: HASH, fields: { [JSON.stringify(member)]: JSON.stringify({ from: member }) } },
  then: {
    reads: [],
    writes: [{ key: 'unblocked', value: { outputs: TOKEN } }],
    ops: [],
    events: [{ ...event(9), payload: { outputs: TOKEN } }],
    fills: [{ token: TOKEN, hash: HASH, as }],
  },
});

const commit = (store: Store, c: Partial<Commit>) => store.commit(WS, { reads: [], writes: [], events: [], ...c });

/** Two outstanding members, `stored` already in the received hash (written as no node would), the first received. */
const waiting = async (store: Store, stored: Record<string, string>) => {
  await commit(store, {
    ops: [
      { op: 'sadd', key: SET, members: ['a', 'b'] },
      { op: 'hset', key: HASH, fields: stored },
    ],
  });
  await commit(store, { fanIns: [unblock('a')] });
};

/**
 * A fill splices a hash's entries into JSON text without decoding them. A stored entry that is not JSON used to be
 * spliced as it was: on Redis the script had already written and published when the call failed, so the commit
 * applied while its caller was told INTERNAL, and the log held an entry no reader could parse.
 */
describe.each(['redis', 'redis-cluster', 'file'] as const)('a fill over a corrupt stored entry (%s store)', (kind) => {
  const it = storeTest(kind);

  it('refuses the commit whole, INTERNAL naming the hash and field', async ({ store }) => {
    await waiting(store, { '"x"': '{not json' });
    const before = await store.readEvents(WS, { count: 100 });

    await expect(commit(store, { fanIns: [unblock('b')], events: [event(1)] })).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining(
        'The stored hash recv:p:step_2 is corrupt (field "x": its value is not JSON)',
      ) as string,
    });

    // Nothing of it applied: the member is still outstanding, its output not recorded, nothing written or logged.
    expect(await store.readEvents(WS, { count: 100 })).toEqual(before);
    expect((await store.load(WS, ['unblocked']))[0]?.value).toBeUndefined();
    const { sets, hashes } = await store.loadCollections(WS, { sets: [SET], hashes: [HASH] });
    expect(sets[0]).toEqual(['b']);
    expect(Object.keys(hashes[0] ?? {}).sort()).toEqual(['"a"', '"x"']);
  });

  it('refuses a field that is not a JSON string, in either form', async ({ store }) => {
    await waiting(store, { 'not-json-field': '1' });
    for (const as of ['object', 'keys'] as const)
      await expect(commit(store, { fanIns: [unblock('b', as)] })).rejects.toMatchObject({
        code: 'INTERNAL',
        message: expect.stringContaining(
          'recv:p:step_2 is corrupt (field not-json-field: the field is not a JSON string)',
        ) as string,
      });
  });

  it('fires when the corrupt entry is one its own record replaces, or is not spliced', async ({ store }) => {
    // The completing member's own field held garbage: the record replaces it before the fill reads it.
    await waiting(store, { '"b"': '{not json' });
    const outcome = await commit(store, { fanIns: [unblock('b')] });
    expect(outcome.ok && outcome.fired).toEqual([true]);
    expect((await store.load(WS, ['unblocked']))[0]?.value).toEqual({
      outputs: { a: { from: 'a' }, b: { from: 'b' } },
    });
    expect((await store.readEvents(WS, { count: 1 }))[0]?.payload).toEqual({
      outputs: { a: { from: 'a' }, b: { from: 'b' } },
    });
  });

  it('splices only the keys when asked, so a corrupt value there does not matter', async ({ store }) => {
    await waiting(store, { '"x"': '{not json' });
    const outcome = await commit(store, { fanIns: [unblock('b', 'keys')] });
    expect(outcome.ok && outcome.fired).toEqual([true]);
    expect((await store.load(WS, ['unblocked']))[0]?.value).toEqual({ outputs: ['a', 'b', 'x'] });
  });
});
