import type { FanIn, Store } from '@planhub/server';
import { createLogger, createMemoryStore, createRedisStore } from '@planhub/server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalizedRedis, type LocalizedRedis } from '../helpers/localized-redis.ts';
import { uniquePrefix } from '../helpers/servers.ts';
import { WS, event } from './conformance-support.ts';

const OBJECT = '@@fill-object@@';
const KEYS = '@@fill-keys@@';
// Case, punctuation and accents: en_US collation orders these unlike their bytes ("agent-B:s" after "agent-a:s").
const MEMBERS = ['agent-a:s', 'agent-B:s', 'agent-b:s', 'Zed:s', '_x:s', 'éa:s', 'eb:s', 'a-z', 'a_z', 'aZ'];
const BYTE_ORDER = [...MEMBERS].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

const completion = (member: string): FanIn => ({
  set: 'out:parent',
  member,
  record: { hash: 'recv:parent', fields: { [JSON.stringify(member)]: JSON.stringify(member) } },
  then: {
    reads: [],
    writes: [{ key: 'parent', value: { received: OBJECT, from: KEYS } }],
    ops: [],
    events: [{ ...event(1), event_type: 'step_unblocked', payload: { received_outputs: OBJECT } }],
    fills: [
      { token: OBJECT, hash: 'recv:parent', as: 'object' },
      { token: KEYS, hash: 'recv:parent', as: 'keys' },
    ],
  },
});

/** Every member completes in turn; the last one fires. Returns the filled orders (event, document object, keys). */
const fillOrders = async (store: Store) => {
  await store.commit(WS, {
    reads: [],
    writes: [],
    ops: [{ op: 'sadd', key: 'out:parent', members: MEMBERS }],
    events: [],
  });
  const outcomes = [];
  for (const member of MEMBERS)
    outcomes.push(await store.commit(WS, { reads: [], writes: [], fanIns: [completion(member)], events: [] }));
  const fired = outcomes.flatMap((o) => (o.ok ? o.events : []));
  expect(fired).toHaveLength(1);
  const parent = (await store.load(WS, ['parent']))[0]?.value as { received: object; from: string[] };
  return {
    event: Object.keys(fired[0]?.payload.received_outputs as object),
    received: Object.keys(parent.received),
    keys: parent.from,
  };
};

/** A fan-in's fill order is the fields' byte order on Redis whatever its locale, as on the memory store. */
describe('fan-in fills on a Redis whose locale is en_US.UTF-8', () => {
  let redis: LocalizedRedis;
  beforeAll(async () => {
    redis = await startLocalizedRedis();
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  it('collates strings by the locale, so the case below shows what byte order changes', async () => {
    const admin = new Redis(redis.url);
    try {
      expect(await admin.eval('return tostring(\'"agent-B:s"\' < \'"agent-a:s"\')', 0)).toBe('false');
    } finally {
      admin.disconnect();
    }
  });

  it('fills received outputs in byte order, the memory store’s order', async () => {
    const memory = createMemoryStore({ eventRetention: 1_000 });
    const store = createRedisStore({
      url: redis.url,
      prefix: uniquePrefix(),
      eventRetention: 1_000,
      log: createLogger('silent'),
    });
    try {
      const expected = { event: BYTE_ORDER, received: BYTE_ORDER, keys: BYTE_ORDER };
      expect(await fillOrders(memory)).toEqual(expected);
      expect(await fillOrders(store)).toEqual(expected);
    } finally {
      await Promise.all([memory.close(), store.close()]);
    }
  });
});
