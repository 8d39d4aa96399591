import { describe, expect } from 'vitest';
import { event, storeTest, WS } from './conformance-support.ts';
import { corrupt, rawClient } from './corrupt-support.ts';

/**
 * Keys no node would write that way used to answer a generic "Internal error in the PlanHub store" naming nothing:
 * a key of the wrong Redis type, a remembered answer that is not JSON, and counters that are not integers (the
 * byte counter failed every write of the workspace, inside the commit script's arithmetic).
 */
describe.each(['redis', 'redis-cluster'] as const)('corrupt Redis keys (%s store)', (kind) => {
  const it = storeTest(kind);
  const at = (prefix: string, name: string) => `${prefix}:{${WS}}:${name}`;

  it('a document key of the wrong type is named, read or committed', async ({ fixture, store }) => {
    const raw = rawClient(kind);
    try {
      await raw.set(at(fixture.prefix, 'doc:step:p:step_1'), 'text');
      const named = corrupt('The stored document step:p:step_1', 'a Redis string, not a hash');
      await expect(store.load(WS, ['step:p:step_1'])).rejects.toMatchObject(named);
      await expect(
        store.commit(WS, { reads: [{ key: 'step:p:step_1', version: 0 }], writes: [], events: [] }),
      ).rejects.toMatchObject(named);
      await raw.set(at(fixture.prefix, 'set:out:p:step_2'), 'text');
      await expect(store.loadCollections(WS, { sets: ['out:p:step_2'] })).rejects.toMatchObject(
        corrupt('The stored key set:out:p:step_2', 'a Redis string, not a set'),
      );
    } finally {
      raw.disconnect();
    }
  });

  it('a remembered answer that is not JSON is named', async ({ fixture, store }) => {
    const raw = rawClient(kind);
    try {
      await raw.set(at(fixture.prefix, 'req:a:rid-1'), '{not json', 'PX', 60_000);
      const named = corrupt('The stored remembered answer req:a:rid-1', 'not JSON');
      await expect(store.requestAnswer(WS, 'a', 'rid-1')).rejects.toMatchObject(named);
      await expect(store.loadWith(WS, [], { request: { agent_id: 'a', request_id: 'rid-1' } })).rejects.toMatchObject(
        named,
      );
    } finally {
      raw.disconnect();
    }
  });

  it('a counter an increment adds to refuses the commit whole, named', async ({ fixture, store }) => {
    const raw = rawClient(kind);
    try {
      await raw.set(at(fixture.prefix, 'ctr:task-ids'), 'abc');
      await expect(
        store.commit(WS, {
          reads: [],
          writes: [{ key: 'task:1', value: { id: 1 } }],
          ops: [{ op: 'incr', key: 'task-ids', by: 1 }],
          events: [event(1)],
        }),
      ).rejects.toMatchObject(corrupt('The stored counter ctr:task-ids', 'not an integer'));
      expect((await store.load(WS, ['task:1']))[0]?.value).toBeUndefined();
      expect(await store.readEvents(WS, { count: 10 })).toEqual([]);
    } finally {
      raw.disconnect();
    }
  });

  it("the workspace's byte counter: named under a quota, and no commit fails after writing", async ({ fixture }) => {
    const raw = rawClient(kind);
    try {
      await raw.set(at(fixture.prefix, 'bytes'), 'abc');
      const quoted = fixture.open({ workspaceBytes: 1_000_000 });
      await expect(
        quoted.commit(WS, { reads: [], writes: [{ key: 'a', value: 1 }], events: [] }),
      ).rejects.toMatchObject(corrupt('The stored counter bytes', 'not an integer'));
      expect((await quoted.load(WS, ['a']))[0]?.value).toBeUndefined();
      // Without a quota nothing reads the count: the commit applies whole, and answers so.
      const unbounded = fixture.open();
      expect((await unbounded.commit(WS, { reads: [], writes: [{ key: 'a', value: 1 }], events: [event(1)] })).ok).toBe(
        true,
      );
      expect((await unbounded.load(WS, ['a']))[0]?.value).toBe(1);
    } finally {
      raw.disconnect();
    }
  });
});
