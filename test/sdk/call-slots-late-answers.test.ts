import { CALLS_IN_FLIGHT_PER_CONNECTION } from '@planhub/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.ts';

const outcomes = async (calls: Promise<unknown>[]) => {
  const by: Record<string, number> = {};
  for (const result of await Promise.allSettled(calls)) {
    const key = result.status === 'fulfilled' ? 'ok' : ((result.reason as { code?: string }).code ?? 'error');
    by[key] = (by[key] ?? 0) + 1;
  }
  return by;
};

/**
 * A call whose caller stopped waiting (its timeoutMs) is still in flight on the node until the node answers it. The
 * SDK freed its place at the caller's deadline, so with the node's store hung, the next queued calls went out past
 * the node's bound of 96 and were refused "Too many calls in flight", which the SDK does not retry.
 */
describe('SDK calls queued behind calls their callers gave up on', () => {
  let redis: RedisProcess;
  let cluster: Cluster;
  beforeAll(async () => {
    redis = await startRedisProcess();
    cluster = await startCluster({ nodes: 1, redisUrl: redis.url, env: { PLANHUB_LIMIT_CALLS_PER_SECOND: '10000' } });
  });
  afterAll(async () => {
    await cluster?.close();
    await redis?.dispose();
  });

  it('wait for the node to answer those before going out, and are never refused for calls in flight', async () => {
    const agent = await cluster.client('queued', { workspace: 'slots' });
    await agent.getTaskEvents({});
    redis.signal('SIGSTOP');
    const plan = { title: 't', steps: ['s'] };
    const first = outcomes(
      Array.from({ length: CALLS_IN_FLIGHT_PER_CONNECTION }, () => agent.createPlan(plan, { timeoutMs: 800 })),
    );
    // Every one of them times out for its caller while the node still holds it.
    expect((await first).DEADLINE_EXCEEDED).toBe(CALLS_IN_FLIGHT_PER_CONNECTION);
    const next = outcomes(Array.from({ length: 20 }, () => agent.getTaskEvents({}, { timeoutMs: 10_000 })));
    redis.signal('SIGCONT');
    const answered = await next;
    expect(answered.RESOURCE_EXHAUSTED).toBeUndefined();
    expect(answered.ok).toBe(20);
  });
});
