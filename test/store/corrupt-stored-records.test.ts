import { join } from 'node:path';
import type { Store } from '@planhub/server';
import { open as openLmdb } from 'lmdb';
import { describe, expect, it as plainIt } from 'vitest';
import { fileStoreFixture } from '../helpers/stores.ts';
import { append, event, storeTest, WS } from './conformance-support.ts';
import { corrupt, rawClient } from './corrupt-support.ts';

/**
 * A document hash that lost its version (`HDEL doc v`, its JSON still there) used to read as missing, and the next
 * write replaced it (the script compared the missing version as 0); one whose version is not a number made every
 * commit that read it conflict, answered UNAVAILABLE "too busy" after the whole retry loop.
 */
describe.each(['redis', 'redis-cluster'] as const)('a document with a corrupt version (%s store)', (kind) => {
  const it = storeTest(kind);

  it('without one: answered INTERNAL naming it, and never overwritten', async ({ fixture, store }) => {
    const raw = rawClient(kind);
    try {
      await store.commit(WS, { reads: [], writes: [{ key: 'agent:a', value: { keep: 'me' } }], events: [] });
      const key = `${fixture.prefix}:{${WS}}:doc:agent:a`;
      await raw.hdel(key, 'v');
      await expect(store.load(WS, ['agent:a'])).rejects.toMatchObject(
        corrupt('The stored document agent:a', 'it has JSON but no version'),
      );
      // A commit that took it for missing (read before the version went) is refused, not applied over it.
      await expect(
        store.commit(WS, {
          reads: [{ key: 'agent:a', version: 0 }],
          writes: [{ key: 'agent:a', value: {} }],
          events: [event(1)],
        }),
      ).rejects.toMatchObject(corrupt('The stored document agent:a', 'the document has JSON but no version'));
      expect(await raw.hget(key, 'd')).toBe('{"keep":"me"}');
      expect(await store.readEvents(WS, { count: 10 })).toEqual([]);
    } finally {
      raw.disconnect();
    }
  });

  it('that is not a number: answered INTERNAL naming it, not as contention', async ({ fixture, store }) => {
    const raw = rawClient(kind);
    try {
      await store.commit(WS, { reads: [], writes: [{ key: 'step:p:step_1', value: { s: 1 } }], events: [] });
      await raw.hset(`${fixture.prefix}:{${WS}}:doc:step:p:step_1`, 'v', 'abc');
      await expect(store.load(WS, ['step:p:step_1'])).rejects.toMatchObject(
        corrupt('The stored document step:p:step_1', 'its version "abc" is not a number'),
      );
    } finally {
      raw.disconnect();
    }
  });
});

/** What the file store answered for these was a bare SyntaxError (a generic INTERNAL naming nothing), or contention. */
describe('corrupt stored records (file store)', () => {
  const { dir, open, close } = fileStoreFixture();

  /** A store with a document, a set, a hash and an event, then `table`'s entry `key` overwritten with `text`. */
  const storeWith = async (table: string, key: string, text: string) => {
    const path = dir();
    const first = open(path);
    await first.commit(WS, {
      reads: [],
      writes: [{ key: 'step:p:step_1', value: { s: 1 } }],
      ops: [
        { op: 'sadd', key: 'out:p:step_2', members: ['a'] },
        { op: 'hset', key: 'recv:p:step_2', fields: { '"a"': '1' } },
      ],
      events: [],
    });
    await append(first, [event(1)]);
    await close(first);
    const raw = openLmdb({ path: join(path, 'data'), maxDbs: 16 });
    try {
      await raw.openDB({ name: table, encoding: 'string' }).put(key, text);
    } finally {
      await raw.close();
    }
    return open(path);
  };
  const entry = (key: string) => `${WS}\u001f${key}`;
  const readStep = (store: Store) => store.load(WS, ['step:p:step_1']);
  const writeStep = (store: Store) =>
    store.commit(WS, {
      reads: [{ key: 'step:p:step_1', version: 1 }],
      writes: [{ key: 'step:p:step_1', value: {} }],
      events: [],
    });

  plainIt('a document that is not JSON', async () => {
    const store = await storeWith('docs', entry('step:p:step_1'), '1 {not json');
    await expect(readStep(store)).rejects.toMatchObject(corrupt('The stored document step:p:step_1', 'not JSON'));
  });

  plainIt('a document whose version is not a number, or that has none', async () => {
    let store = await storeWith('docs', entry('step:p:step_1'), 'abc {"s":1}');
    const notNumber = corrupt('The stored document step:p:step_1', 'its version "abc" is not a number');
    await expect(readStep(store)).rejects.toMatchObject(notNumber);
    await expect(writeStep(store)).rejects.toMatchObject(notNumber);
    store = await storeWith('docs', entry('step:p:step_1'), '{"s":1}');
    await expect(readStep(store)).rejects.toMatchObject(
      corrupt('The stored document step:p:step_1', 'it has no version'),
    );
  });

  plainIt('a hash or a set that is not JSON, read or changed', async () => {
    let store = await storeWith('hashes', entry('recv:p:step_2'), '{not json');
    const hash = corrupt('The stored hash recv:p:step_2', 'not JSON');
    await expect(store.loadCollections(WS, { hashes: ['recv:p:step_2'] })).rejects.toMatchObject(hash);
    await expect(
      store.commit(WS, {
        reads: [],
        writes: [],
        ops: [{ op: 'hset', key: 'recv:p:step_2', fields: { '"b"': '2' } }],
        events: [],
      }),
    ).rejects.toMatchObject(hash);
    store = await storeWith('sets', entry('out:p:step_2'), '"a"');
    await expect(store.loadCollections(WS, { sets: ['out:p:step_2'] })).rejects.toMatchObject(
      corrupt('The stored set out:p:step_2', 'not a JSON array'),
    );
  });

  plainIt("the workspace's record", async () => {
    const store = await storeWith('meta', WS, '{not json');
    const record = corrupt(`The stored workspace record ${WS}`, 'not JSON');
    await expect(writeStep(store)).rejects.toMatchObject(record);
    await expect(store.trimmedThrough(WS)).rejects.toMatchObject(record);
  });
});
