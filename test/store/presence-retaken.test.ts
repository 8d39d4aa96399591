import type { Store } from '@planhub/server';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createPresenceTracker, type PresenceTracker } from '../../server/src/presence/presence-tracker.ts';
import { createRedisPresence, type PresenceRedis } from '../../server/src/store/presence/redis-presence.ts';
import { uniquePrefix } from '../helpers/servers.ts';
import { STORE_FIXTURE_KINDS, deletePrefix } from '../helpers/stores.ts';
import { storeTest } from './conformance-support.ts';
import { eventually } from '../helpers/eventually.ts';
import { presenceChanges } from '../helpers/presence-taker.ts';

const TTL_MS = 1_000;

/**
 * A node whose heartbeat lapsed while it lived (a store outage longer than the ttl) is taken for dead by another
 * node, which reports its agents offline. When it beats again it must write its entries back and say its agents
 * are online, or an idle connected agent (one waiting for events) reads offline until its next call.
 */
describe('a node taken for dead while it lived, on a real Redis', () => {
  const prefix = uniquePrefix();
  const redis = new Redis(inject('redisUrl'));
  afterAll(async () => {
    redis.disconnect();
    await deletePrefix(inject('redisUrl'), prefix);
  });

  it('keeps an entry its node wrote again while another node was taking it', async () => {
    const hooks: { afterRead?: () => Promise<void> } = {};
    // The real client; `afterRead` runs between the taker's read of the workspace and its move.
    const interleaved = new Proxy(redis, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (name !== 'hgetall' || typeof value !== 'function') return value;
        return async (key: string) => {
          const read = await (value as (k: string) => Promise<Record<string, string>>).call(target, key);
          const hook = hooks.afterRead;
          hooks.afterRead = undefined;
          await hook?.();
          return read;
        };
      },
    }) as PresenceRedis;
    const taker = createRedisPresence(interleaved, prefix);
    const node = createRedisPresence(redis, prefix);
    const start = Date.now();
    const at = new Date(start).toISOString();
    const entry = { agent_id: 'idle', connections: 1, last_seen_at: at };
    expect(await node.beat('n1', start, TTL_MS), 'a first beat').toBe(true);
    expect(await node.beat('n1', start, TTL_MS), 'a later beat').toBe(false);
    await node.write('n1', 'ws', [entry]);
    const lapsed = start + TTL_MS + 1;
    hooks.afterRead = async () => {
      // The node comes back: its beat finds it gone from the live set, and it writes its entry again, unchanged.
      expect(await node.beat('n1', lapsed, TTL_MS)).toBe(true);
      await node.write('n1', 'ws', [entry]);
    };
    expect(await taker.takeLost(lapsed)).toEqual([]);
    expect(hooks.afterRead, 'the interleaving ran').toBeUndefined();
    expect((await node.read('ws', lapsed)).get('idle')).toEqual({ online: true, last_seen_at: at });
  });
});

describe.each(STORE_FIXTURE_KINDS)('presence after a node was taken for dead (%s store)', (kind) => {
  const it = storeTest(kind);
  const log = pino({ level: 'silent' });

  it('writes its entries again and announces its agents online', async ({ fixture }) => {
    // Two nodes on Redis; the memory and file stores serve one node, where two trackers share its presence.
    const first = fixture.open();
    const stores = [first, kind.startsWith('redis') ? fixture.open() : first];
    // Node B's clock can jump ahead, so that A's heartbeat reads lapsed to it: as after an outage, for one sweep.
    let ahead = 0;
    const tracker = (nodeId: string, store: Store, now?: () => number): PresenceTracker =>
      createPresenceTracker({
        nodeId,
        backend: store.presence,
        store,
        log,
        // Short, so the test is quick; a busy machine may still delay a sweep past the ttl, which this change heals.
        heartbeatMs: 200,
        stallAfterMs: 3_600_000,
        ...(now ? { now } : {}),
      });
    const trackers = [tracker('node-a', stores[0]!), tracker('node-b', stores[1]!, () => Date.now() + ahead)];
    try {
      trackers[0]!.connected({ workspace: 'ws', agent_id: 'idle', role: 'agent' } as never);
      for (const t of trackers) t.start();
      await eventually(async () => {
        const events = await presenceChanges(stores[1]!);
        expect(events[0]).toEqual(['agent_online', null]);
        expect(events.at(-1)).toEqual(['agent_online', null]);
      });
      // A busy machine may delay a sweep past the ttl before the jump (a real lapse, healed the same way): the
      // jump's own take is the next node_lost.
      const lost = async () => (await presenceChanges(stores[1]!)).filter(([type]) => type === 'agent_offline').length;
      const lostBefore = await lost();

      ahead = 60_000;
      // B takes A for dead at its next sweep; A, still beating, may already have healed it when this looks.
      await eventually(async () => expect(await lost()).toBeGreaterThan(lostBefore));
      ahead = 0;

      await eventually(async () => {
        expect((await stores[1]!.presence.read('ws', Date.now())).get('idle')?.online).toBe(true);
        expect((await presenceChanges(stores[1]!)).at(-1)).toEqual(['agent_online', null]);
      });
    } finally {
      for (const t of trackers) await t.close();
    }
  });
});
