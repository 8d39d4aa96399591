import type { CallAck } from '@planhub/shared';
import { Redis } from 'ioredis';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { eventually } from '../helpers/eventually.ts';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.ts';
import { parsePrometheus, valueOf } from '../ops/prometheus-text.ts';
import { startHaproxy, type Balancer } from './haproxy.ts';

/** How long Redis holds writes: longer than HAProxy takes to mark the draining node down (two 1 s checks). */
const HELD_MS = 4000;

const agentsOn = async (url: string) =>
  valueOf(parsePrometheus(await (await fetch(`${url}/metrics`)).text()).samples, 'planhub_connections', {
    role: 'agent',
  });

/**
 * A node told to stop (SIGTERM, a rolling upgrade) lets calls doing work finish for up to 10 s before it
 * disconnects its clients. Behind the shipped HAProxy that drain never reached them: the node closes its listener,
 * HAProxy marks it down after two refused checks, and `on-marked-down shutdown-sessions` cut every connection to it,
 * so a call still working lost its answer after about 2 s (an MCP host reported an applied call as a timeout).
 */
describe('a node draining behind HAProxy (deploy/haproxy.cfg)', () => {
  let redis: RedisProcess;
  let admin: Redis;
  let cluster: Cluster;
  let lb: Balancer;
  let socket: Socket | undefined;

  beforeAll(async () => {
    redis = await startRedisProcess();
    admin = new Redis(redis.url);
    cluster = await startCluster({ nodes: 2, redisUrl: redis.url, env: { PLANHUB_APPROVAL_POLICY: 'auto' } });
    const [a, b] = cluster.urls.map((u) => new URL(u).host) as [string, string];
    lb = await startHaproxy([a, b]);
  }, 120_000);
  afterAll(async () => {
    socket?.close();
    await lb?.close();
    await cluster?.close();
    admin?.disconnect();
    await redis?.dispose();
  });

  it('answers a call that was working when the drain began, through the balancer', async () => {
    // A bare client that neither retries nor reconnects: what it receives is what the balancer let through.
    socket = io(lb.url, {
      transports: ['websocket'],
      reconnection: false,
      auth: { workspace: 'drain', agent_id: 'worker', role: 'agent' },
    });
    await new Promise<void>((resolve, reject) => {
      socket?.once('connect', resolve).once('connect_error', reject);
    });
    const counts = await Promise.all(cluster.urls.map(agentsOn));
    const node = counts.indexOf(1);
    expect(counts.toSorted()).toEqual([0, 1]);

    let disconnectedAt: number | undefined;
    socket.once('disconnect', () => (disconnectedAt = performance.now()));
    await admin.call('CLIENT', 'PAUSE', String(HELD_MS), 'WRITE');
    const sentAt = performance.now();
    const answer = socket.timeout(15_000).emitWithAck('call', {
      tool: 'createPlan',
      args: { title: 'during the drain', steps: ['a'] },
    }) as Promise<CallAck>;
    await new Promise((resolve) => setTimeout(resolve, 300));
    cluster.signal(node, 'SIGTERM');

    const ack = await answer;
    expect(ack, `balancer:\n${lb.output()}`).toMatchObject({ ok: true, result: { title: 'during the drain' } });
    // The answer came when Redis took writes again, before the node let the connection go.
    expect(performance.now() - sentAt).toBeGreaterThan(HELD_MS - 500);
    expect(disconnectedAt === undefined || disconnectedAt > sentAt + HELD_MS - 500).toBe(true);
    await eventually(() => expect(disconnectedAt).toBeDefined());
  });
});
