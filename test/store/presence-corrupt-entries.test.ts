import type { Caller } from '@planhub/shared';
import { Cluster, Redis } from 'ioredis';
import { describe, expect, inject } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { capturedLog, presenceEvents, presenceTaker } from '../helpers/presence-taker.ts';
import { testClusterNodes, type StoreFixtureKind } from '../helpers/stores.ts';
import { storeTest } from './conformance-support.ts';

const BEAT_MS = 50;
const TTL_MS = BEAT_MS * 3;

/** A raw client on the fixture's Redis, to write what no node would. */
const rawClient = (kind: StoreFixtureKind): Redis | Cluster =>
  kind === 'redis'
    ? new Redis(inject('redisUrl'))
    : new Cluster(testClusterNodes().map((n) => ({ host: n.split(':')[0], port: Number(n.split(':')[1]) })));

/** Not JSON, and JSON of the wrong shape: both must be skipped and named, never thrown or misread. */
const CORRUPT_VALUES = [
  ['not JSON', '{"c":1,'],
  ['the wrong shape', '{"c":"one","at":7}'],
] as const;

/**
 * The Redis presence keeps one hash per workspace, a field per (node, agent). A corrupt value there used to fail
 * every read of the workspace, and a dead node holding one was put back as lapsed and thrown on every sweep: its
 * good agents never reported offline, the taker's other work held up behind it.
 */
describe.each(['redis', 'redis-cluster'] as const)('corrupt presence entries (%s store)', (kind) => {
  const it = storeTest(kind);

  describe.each(CORRUPT_VALUES)('holding %s', (_, corrupt) => {
    it('read and online answer the good entries and name each bad one once', async ({ fixture, store }) => {
      await store.ping();
      const raw = rawClient(kind);
      try {
        const now = Date.now();
        const at = new Date(now).toISOString();
        await store.presence.beat('node-a', now, 60_000);
        await store.presence.write('node-a', 'ws', [
          { agent_id: 'fine', connections: 1, last_seen_at: at },
          { agent_id: 'broken', connections: 1, last_seen_at: at },
        ]);
        const hash = `${fixture.prefix}:presence:ws:ws`;
        await raw.hset(hash, JSON.stringify(['node-a', 'broken']), corrupt);
        // A field that is no [node, agent] pair: no node can own it.
        await raw.hset(hash, 'not-a-field', '{"c":1,"at":"x"}');

        for (let i = 0; i < 5; i++) {
          const presence = await store.presence.read('ws', now);
          expect([...presence.keys()]).toEqual(['fine']);
          expect(presence.get('fine')).toEqual({ online: true, last_seen_at: at });
          expect(await store.presence.online('ws', 'broken', now)).toBe(false);
          expect(await store.presence.online('ws', 'fine', now)).toBe(true);
        }
        const named = store.presence.takeCorrupt().map((err) => [err.code, err.message]);
        expect(named).toHaveLength(2);
        expect(named).toEqual(
          expect.arrayContaining([
            ['INTERNAL', expect.stringContaining(`${hash} field ["node-a","broken"] is corrupt`)],
            ['INTERNAL', expect.stringContaining(`${hash} field not-a-field is corrupt`)],
          ]),
        );
        await store.presence.read('ws', now);
        expect(store.presence.takeCorrupt(), 'named once, not per read').toEqual([]);
      } finally {
        raw.disconnect();
      }
    });

    it('takes a dead node holding one, reports its good agents once, and keeps serving', async ({ fixture, store }) => {
      await store.ping();
      const raw = rawClient(kind);
      const { log, lines } = capturedLog();
      const hash = `${fixture.prefix}:presence:ws:ws`;
      const brokenField = JSON.stringify(['node-dead', 'broken']);
      const taker = presenceTaker(store, log, BEAT_MS);
      try {
        // A dead node held a connection of each agent; one entry is corrupt.
        const start = Date.now();
        const seen = new Date(start - 2 * TTL_MS).toISOString();
        await store.presence.beat('node-dead', start - 2 * TTL_MS, TTL_MS);
        await store.presence.write('node-dead', 'ws', [
          { agent_id: 'fine', connections: 1, last_seen_at: seen },
          { agent_id: 'broken', connections: 1, last_seen_at: seen },
        ]);
        await raw.hset(hash, brokenField, corrupt);
        // And one no node owns, which stays: read on every getWorkspace, it is still named once.
        await raw.hset(hash, 'not-a-field', corrupt);

        taker.start();
        await eventually(async () =>
          expect(await presenceEvents(store)).toEqual([['agent_offline', 'fine', 'node_lost']]),
        );
        // The taker keeps serving: a connection on it is announced, as ever.
        const worker: Caller = { workspace: 'ws', agent_id: 'worker', role: 'agent' };
        taker.connected(worker);
        await eventually(async () =>
          expect(await presenceEvents(store)).toContainEqual(['agent_online', 'worker', null]),
        );
        // Many beats (and reads) later, nothing is retried and the dead node is gone, not lapsed again.
        for (let i = 0; i < 8; i++) {
          await store.presence.read('ws', Date.now());
          await new Promise((resolve) => setTimeout(resolve, BEAT_MS));
        }
        expect(await raw.zscore(`${fixture.prefix}:presence:nodes`, 'node-dead')).toBeNull();
        expect(await raw.hget(hash, brokenField), 'its corrupt entry deleted').toBeNull();
        const presence = await store.presence.read('ws', Date.now());
        expect(presence.get('fine')).toEqual({ online: false, last_seen_at: seen });
        expect(presence.has('broken')).toBe(false);
        // Eventually: under load the taker's own heartbeat may lapse for a moment, and its next beat says it again.
        await eventually(async () =>
          expect((await store.presence.read('ws', Date.now())).get('worker')?.online).toBe(true),
        );
        taker.disconnected(worker);
      } finally {
        await taker.close();
        raw.disconnect();
      }
      const complaints = lines.filter((l) => l.level >= 40);
      expect(complaints.map((l) => [l.level, l.err?.message])).toEqual(
        expect.arrayContaining([
          [50, expect.stringContaining(`${hash} field ${brokenField} is corrupt`)],
          [50, expect.stringContaining(`${hash} field not-a-field is corrupt`)],
        ]),
      );
      expect(complaints, 'each named once, not on every beat').toHaveLength(2);
      // The worker's own events are left out: a lapse of the taker under load would add a pair of them.
      expect((await presenceEvents(store)).filter(([, agent]) => agent !== 'worker')).toEqual([
        ['agent_offline', 'fine', 'node_lost'],
      ]);
    });
  });
});
