import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { eventually } from '../helpers/eventually.ts';
import { recordEvents } from '../helpers/event-log.ts';
import {
  announcedPorts,
  keySlot,
  startRedisCluster,
  type ClusterNode,
  type RedisCluster,
} from '../helpers/redis-cluster.ts';
import { uniquePrefix } from '../helpers/servers.ts';
import { startTcpBalancer } from '../helpers/tcp-balancer.ts';
import { clientOn } from './support/chaos-cluster.ts';

const WS = 'mute';
/** A short store deadline: a PING goes unanswered within it, so a silent connection is found in a few seconds. */
const DEADLINE_MS = 1500;

/**
 * On a Redis Cluster ioredis holds one command connection per master. The network forgets the one to the master of
 * a workspace's slot without closing it (a NAT or firewall idle timeout, a frozen VM): every call of that workspace
 * timed out for the kernel's retransmission time (about 15 min) while the other shards answered, until the node
 * learned to ping each master and replace a connection that stays silent.
 */
describe('a Redis Cluster master connection dropped silently by the network', () => {
  let redis: RedisCluster;
  let proxy: Awaited<ReturnType<typeof startTcpBalancer>>;
  let cluster: Cluster;
  let victim: ClusterNode;
  let slot: number;
  beforeAll(async () => {
    redis = await startRedisCluster();
    const prefix = uniquePrefix();
    slot = await keySlot(redis.nodes[0]?.port ?? 0, `${prefix}:{${WS}}:events`);
    victim = await redis.masterOf(slot);
    // The master announces the proxy's port, so every client reaches it through the proxy (the bus is untouched).
    proxy = await startTcpBalancer([new URL(`redis://127.0.0.1:${victim.port}`)]);
    const proxyPort = Number(new URL(proxy.url).port);
    const admin = new Redis({ port: victim.port });
    await admin.config('SET', 'cluster-announce-port', String(proxyPort));
    admin.disconnect();
    await eventually(async () =>
      expect(new Set(await announcedPorts(redis.nodes, slot))).toEqual(new Set([proxyPort])),
    );
    cluster = await startCluster({
      nodes: 1,
      prefix,
      clusterNodes: redis.addresses.filter((a) => a !== victim.address),
      env: { PLANHUB_APPROVAL_POLICY: 'auto', PLANHUB_STORE_DEADLINE_MS: String(DEADLINE_MS) },
    });
  }, 60_000);
  afterAll(async () => {
    await cluster?.close();
    await proxy?.close();
    await redis?.dispose();
  });

  it('calls of the workspace work again once the node replaces it, and nothing acknowledged is lost', async () => {
    const agent = await clientOn(cluster, 0, 'writer', WS);
    const watcher = await clientOn(cluster, 0, 'board', WS, 'dashboard');
    const log = recordEvents(watcher);
    await watcher.subscribeToTasks({ event_types: ['plan_created'] });
    const kept = await agent.createPlan({ title: 'acknowledged before the drop', steps: ['a'] });

    expect(proxy.stall(`planhub:${cluster.prefix}`)).toBeGreaterThan(0);
    const status = await eventually(() => agent.getPlanStatus({ plan_id: kept.plan_id }), { timeout: 30_000 });
    expect(status).toMatchObject({ plan_id: kept.plan_id, title: 'acknowledged before the drop' });
    const after = await agent.createPlan({ title: 'after the drop', steps: ['a'] });
    expect(after.plan_id).not.toBe(kept.plan_id);
    await log.next((e) => e.source_plan_id === after.plan_id);
    expect(log.of('plan_created').map((e) => e.source_plan_id)).toEqual([kept.plan_id, after.plan_id]);
    await eventually(async () => expect((await fetch(`${cluster.urls[0]}/readyz`)).status).toBe(200));
    expect(cluster.output(0)).toMatch(
      new RegExp(`answered no PING on the commands connection to 127\\.0\\.0\\.1:${new URL(proxy.url).port} 2 times`),
    );
  }, 60_000);
});
