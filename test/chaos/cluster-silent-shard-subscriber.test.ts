import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { eventually } from '../helpers/eventually.ts';
import { recordEvents } from '../helpers/event-log.ts';
import { announcedPorts, keySlot, startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.ts';
import { uniquePrefix } from '../helpers/servers.ts';
import { clientOn, deliveryReport, logOf } from './support/chaos-cluster.ts';
import { startTappedProxy } from './support/tapped-proxy.ts';

const WS = 'deaf';
/** A short store deadline: a PING goes unanswered within it, so a silent connection is found in a few seconds. */
const DEADLINE_MS = 1500;

/**
 * On a Redis Cluster a node's subscriber holds one connection per master. The network forgets the one to the master
 * of a workspace's slot without closing it: the node heard none of that shard's messages for as long as its kernel
 * kept the flow (hours, an idle subscriber sends nothing), its watchers got the shard's events only through the
 * periodic read-back, and /readyz stayed 200, until the node learned to ping each shard's subscriber connection and
 * replace one that stays silent.
 */
describe("a Redis Cluster shard's subscriber connection dropped silently by the network", () => {
  let redis: RedisCluster;
  let proxy: Awaited<ReturnType<typeof startTappedProxy>>;
  let cluster: Cluster;
  let channel: string;
  beforeAll(async () => {
    redis = await startRedisCluster();
    const prefix = uniquePrefix();
    channel = `${prefix}:{${WS}}:feed`;
    const slot = await keySlot(redis.nodes[0]?.port ?? 0, channel);
    const victim = await redis.masterOf(slot);
    // The master announces the proxy's port, so every client reaches it through the proxy (the bus is untouched).
    proxy = await startTappedProxy(victim.port);
    const admin = new Redis({ port: victim.port });
    await admin.config('SET', 'cluster-announce-port', String(proxy.port));
    admin.disconnect();
    await eventually(async () =>
      expect(new Set(await announcedPorts(redis.nodes, slot))).toEqual(new Set([proxy.port])),
    );
    cluster = await startCluster({
      nodes: 2,
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

  it('the node replaces it, hears the shard through pub/sub again, and its watcher gets every event once', async () => {
    const subscriberName = `ioredis-cluster(ssubscriber):planhub-sub:${cluster.prefix}`;
    const watcher = await clientOn(cluster, 0, 'board', WS, 'dashboard');
    const log = recordEvents(watcher);
    await watcher.subscribeToTasks({ event_types: ['plan_created'] });
    // Node 1 only commits: it follows no workspace, so the one subscriber connection to the shard is node 0's.
    const agent = await clientOn(cluster, 1, 'writer', WS);
    await eventually(() => expect(proxy.live(subscriberName).join('')).toContain(channel));
    const before = await agent.createPlan({ title: 'before the drop', steps: ['a'] });
    await log.next((e) => e.source_plan_id === before.plan_id);

    expect(proxy.stall(subscriberName)).toBe(1);
    const during = await agent.createPlan({ title: 'while node 0 hears nothing of the shard', steps: ['a'] });
    // The node replaced it, and the new connection subscribed the workspace's channel again (its reply names it) ...
    await eventually(() => expect(proxy.live(subscriberName).join('')).toContain(channel), { timeout: 30_000 });
    expect(cluster.output(0)).toMatch(
      new RegExp(`answered no PING on the subscriber connection to 127\\.0\\.0\\.1:${proxy.port} in time`),
    );
    const after = await agent.createPlan({ title: 'after the replacement', steps: ['a'] });
    const heard = await log.next((e) => e.source_plan_id === after.plan_id);
    // ... and carries the shard's messages: the event went out to node 0 through pub/sub, not only in a read-back.
    await eventually(() => expect(proxy.live(subscriberName).join('')).toContain(heard.event_id));

    await log.next((e) => e.source_plan_id === during.plan_id);
    expect(log.of('plan_created').map((e) => e.source_plan_id)).toEqual([
      before.plan_id,
      during.plan_id,
      after.plan_id,
    ]);
    const expected = await logOf(agent, ['plan_created']);
    expect(deliveryReport({ workspace: WS, client: watcher, log }, expected)).toEqual({
      workspace: WS,
      lost: 0,
      duplicated: 0,
      outOfOrder: false,
    });
    await eventually(async () => expect((await fetch(`${cluster.urls[0]}/readyz`)).status).toBe(200));
  }, 90_000);
});
