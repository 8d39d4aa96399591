import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { eventually } from '../helpers/eventually.ts';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.ts';
import { clientOn, watch } from './support/chaos-cluster.ts';

const readyz = async (url: string) => {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as { reason?: string } };
};

/**
 * A node's subscriber connection is up, but subscribing to a workspace's channel keeps failing while commands work
 * (here Redis has no SSUBSCRIBE at all; in a cluster review, "No sharded subscriber for slot …" every 2 s for 13
 * minutes after a failover churn). The node said ready, and on one Redis its watchers never heard other nodes'
 * events of that workspace.
 */
describe('a workspace subscription that keeps failing', () => {
  let redis: RedisProcess;
  let cluster: Cluster;
  beforeAll(async () => {
    redis = await startRedisProcess({ args: ['--rename-command', 'SSUBSCRIBE', ''] });
    cluster = await startCluster({ nodes: 2, redisUrl: redis.url, env: { PLANHUB_APPROVAL_POLICY: 'auto' } });
  });
  afterAll(async () => {
    await cluster?.close();
    await redis?.dispose();
  });

  it('makes the node say its events are down, and still delivers them from the log', async () => {
    expect(await readyz(cluster.urls[0] as string)).toMatchObject({ status: 200 });
    const watcher = await watch(cluster, 0, 'deaf', ['plan_created']);
    await eventually(async () =>
      expect(await readyz(cluster.urls[0] as string)).toMatchObject({
        status: 503,
        body: { reason: 'store_events_down' },
      }),
    );
    const producer = await clientOn(cluster, 1, 'producer', 'deaf');
    const plan = await producer.createPlan({ title: 'written on the other node', steps: ['a'] });
    await watcher.log.next((e) => e.source_plan_id === plan.plan_id);
    expect(watcher.log.of('plan_created').map((e) => e.source_plan_id)).toEqual([plan.plan_id]);
    expect(cluster.output(0)).toMatch(/event subscription keeps failing while the connection is up/);
  });
});
