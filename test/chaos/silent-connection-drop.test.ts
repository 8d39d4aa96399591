import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { eventually } from '../helpers/eventually.ts';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.ts';
import { startTcpBalancer } from '../helpers/tcp-balancer.ts';
import { clientOn, watch } from './support/chaos-cluster.ts';

/** A short store deadline: a PING goes unanswered within it, so a silent connection is found in a few seconds. */
const DEADLINE_MS = 1500;

const readyz = async (url: string) => {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as { reason?: string } };
};

/**
 * The network forgets a node's connection to Redis without closing it (a NAT or firewall idle timeout, a frozen
 * VM): nothing passes and the node is not told. Until the node looked, its subscriber stayed deaf to every event for
 * the kernel's 2 h keepalive with /readyz at 200, and its command connection timed every call out for about 15 min.
 */
describe('a Redis connection dropped silently by the network', () => {
  let redis: RedisProcess;
  let proxy: Awaited<ReturnType<typeof startTcpBalancer>>;
  let cluster: Cluster;
  beforeAll(async () => {
    redis = await startRedisProcess();
    proxy = await startTcpBalancer([new URL(redis.url)]);
    cluster = await startCluster({
      nodes: 2,
      redisUrl: proxy.url.replace(/^http:/, 'redis:'),
      env: { PLANHUB_APPROVAL_POLICY: 'auto', PLANHUB_STORE_DEADLINE_MS: String(DEADLINE_MS) },
    });
  });
  afterAll(async () => {
    await cluster?.close();
    await proxy?.close();
    await redis?.dispose();
  });

  it('the subscriber: the node replaces it, delivers what it missed, and says unready only meanwhile', async () => {
    const watcher = await watch(cluster, 0, 'deaf', ['plan_created']);
    const producer = await clientOn(cluster, 1, 'producer', 'deaf');
    const before = await producer.createPlan({ title: 'before', steps: ['a'] });
    await watcher.log.next((e) => e.source_plan_id === before.plan_id);

    expect(proxy.stall(`planhub-sub:${cluster.prefix}`)).toBe(2);
    const after = await producer.createPlan({ title: 'after', steps: ['a'] });
    await eventually(() =>
      expect(
        watcher.log.events.some((e) => e.source_plan_id === after.plan_id),
        `node 0's log:\n${cluster.output(0)}`,
      ).toBe(true),
    );
    expect(watcher.log.of('plan_created').map((e) => e.source_plan_id)).toEqual([before.plan_id, after.plan_id]);
    await eventually(async () => expect(await readyz(cluster.urls[0] as string)).toMatchObject({ status: 200 }));
    expect(cluster.output(0)).toMatch(/answered no PING on the subscriber connection in time: replacing it/);
  });

  it('the command connection: calls work again once the node replaces it, and nothing acknowledged is lost', async () => {
    const agent = await clientOn(cluster, 0, 'writer', 'mute');
    const kept = await agent.createPlan({ title: 'acknowledged before the drop', steps: ['a'] });

    expect(proxy.stall(`planhub:${cluster.prefix}`)).toBe(2);
    const status = await eventually(() => agent.getPlanStatus({ plan_id: kept.plan_id }));
    expect(status).toMatchObject({ plan_id: kept.plan_id, title: 'acknowledged before the drop' });
    expect((await agent.createPlan({ title: 'after the drop', steps: ['a'] })).plan_id).not.toBe(kept.plan_id);
    await eventually(async () => expect(await readyz(cluster.urls[0] as string)).toMatchObject({ status: 200 }));
    expect(cluster.output(0)).toMatch(/answered no PING on the commands connection 2 times in a row: replacing it/);
  });
});
