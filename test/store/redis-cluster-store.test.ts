import { createLogger } from '@planhub/server';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, vi } from 'vitest';
import { testClusterNodes } from '../helpers/stores.ts';
import { captureLog } from '../security/support/capture-log.ts';
import { append, event, storeTest } from './conformance-support.ts';
import { poll } from '../helpers/eventually.ts';

const LEASE_MS = 300;
/** Workspaces whose keys hash to slots on different masters of a 3-master cluster. */
const WORKSPACES = ['ws-a', 'ws-b', 'ws-c', 'ws-d', 'ws-e', 'ws-f'];

describe('the Redis store on a Redis Cluster', () => {
  const it = storeTest('redis-cluster');
  let raw: Cluster;
  beforeAll(async () => {
    raw = new Cluster(testClusterNodes().map((n) => ({ host: n.split(':')[0], port: Number(n.split(':')[1]) })));
    await new Promise((resolve) => raw.once('ready', resolve));
  });
  afterAll(() => raw?.disconnect());

  it('renews the connection leases of agents whose keys live on different slots', async ({ store, fixture }) => {
    const counter = store.limits.connectionCounter({ log: createLogger('silent'), leaseMs: LEASE_MS });
    try {
      const keys = WORKSPACES.map((ws) => `{${ws}}:agent-1`);
      const start = Date.now();
      for (const key of keys) expect(await counter.acquire(key, 'c1', 1)).toEqual({ admitted: true, live: 1 });
      // A renewal is one pipeline per agent: one pipeline across slots is refused by a Cluster and renews nothing.
      await vi.waitFor(
        async () => {
          for (const key of keys)
            expect(Number(await raw.zscore(`${fixture.prefix}:conn:${key}`, 'c1'))).toBeGreaterThan(
              start + 2 * LEASE_MS,
            );
        },
        { timeout: 20 * LEASE_MS, interval: LEASE_MS / 6 },
      );
      for (const key of keys) expect(await counter.acquire(key, 'c2', 1)).toEqual({ admitted: false, live: 1 });
    } finally {
      counter.close();
    }
  });

  it('acknowledges a commit with waitReplicas once a replica holds it', async ({ fixture }) => {
    const store = fixture.open({ waitReplicas: 1 });
    for (const ws of WORKSPACES) {
      const outcome = await store.commit(ws, { reads: [], writes: [{ key: 'doc', value: { ws } }], events: [] });
      expect(outcome).toEqual({ ok: true, events: [] });
      const key = `${fixture.prefix}:{${ws}}:doc:doc`;
      const slot = Number(await raw.call('CLUSTER', 'KEYSLOT', key));
      // The slot's replicas as the Cluster itself reports them (the client's own node list may still be filling).
      const ranges = (await raw.call('CLUSTER', 'SLOTS')) as [number, number, ...[string, number][]][];
      const [, , , ...replicas] = ranges.find(([from, to]) => slot >= from && slot <= to) ?? [];
      const holders = await Promise.all(
        replicas.map(async ([host, port]) => {
          const replica = new Redis({ host, port, lazyConnect: true });
          try {
            await replica.call('READONLY');
            return await replica.hget(key, 'd');
          } finally {
            replica.disconnect();
          }
        }),
      );
      expect(
        holders.filter((d) => d !== null),
        `slot ${slot}`,
      ).toEqual([JSON.stringify({ ws })]);
    }
  });

  it('starts a watch before the commit its watcher sends next, while the node connection is still being made', async ({
    fixture,
  }) => {
    // A command sent while a node connection is connecting is retried by ioredis 100 ms later through a random
    // node, so two commands sent in a row can reach their node in the other order. The watch's starting point
    // must still be read before its watcher's next commit, or that commit's events are skipped.
    for (const ws of [...WORKSPACES, ...WORKSPACES, ...WORKSPACES]) {
      const store = fixture.open();
      await store.ping();
      // Starts the connection to the workspace's node without waiting for it.
      void store.load(ws, ['doc']).catch(() => undefined);
      const seen: string[] = [];
      const off = store.watch(ws, (e) => seen.push(e.event_id));
      const outcome = await store.commit(ws, { reads: [], writes: [], events: [event(1, ws)] });
      if (!outcome.ok) throw new Error('append conflicted');
      const [marker] = await append(store, [event(2, ws)], ws);
      await poll(() => seen.at(-1)).toEqual(marker?.event_id);
      expect(seen, ws).toEqual([...outcome.events, marker].map((e) => e?.event_id));
      off();
    }
  });
});

describe('waitReplicas on a Redis without replicas', () => {
  const it = storeTest('redis');

  it('still acknowledges commits, warns once and stops waiting for a while', async ({ fixture }) => {
    const capture = captureLog();
    const store = fixture.open({ waitReplicas: 1, log: capture.log });
    for (let i = 0; i < 3; i++)
      expect(await store.commit('ws', { reads: [], writes: [{ key: `d${i}`, value: i }], events: [] })).toEqual({
        ok: true,
        events: [],
      });
    expect((await store.load('ws', ['d0', 'd1', 'd2'])).map((d) => d.value)).toEqual([0, 1, 2]);
    expect(capture.lines.filter((l) => l.msg.startsWith('commit not confirmed'))).toEqual([
      expect.objectContaining({ workspace: 'ws', replicas: 1, reached: 0 }),
    ]);
  });
});
