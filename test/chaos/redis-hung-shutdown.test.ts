import { connect } from '@planhub/client-sdk';
import { createServer } from '@planhub/server';
import { afterAll, describe, expect, it } from 'vitest';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.ts';

const DEADLINE_MS = 2_000;
const GRACE_MS = 1_000;
/** What the node allows itself after the drain (create-server.ts), and what a test machine adds to any wait. */
const AFTER_DRAIN_MS = 3_000;
const SLACK_MS = 1_500;

/**
 * A node told to stop while Redis hangs: the steps after its drain (connection leases, presence, the store) each used
 * to wait out a store deadline of their own, and a node with one client took 16-19 s to stop, past a container's
 * grace period, which then killed it. The bound is the specification, not a speed target.
 */
describe('stopping a node while Redis hangs (SIGSTOP)', () => {
  let redis: RedisProcess | undefined;
  afterAll(async () => {
    redis?.signal('SIGCONT');
    await redis?.dispose();
  });

  it('ends within its drain plus its bound, with clients connected and a call running', async () => {
    redis = await startRedisProcess();
    const server = createServer({
      port: 0,
      logLevel: 'silent',
      redisUrl: redis.url,
      redisPrefix: 'hung-stop',
      approvalPolicy: 'auto',
      storeDeadlineMs: DEADLINE_MS,
      shutdownGraceMs: GRACE_MS,
    });
    const { url } = await server.listen();
    const agents = await Promise.all(
      ['a', 'b', 'c'].map((id) => connect({ url, workspace: 'ws', agentId: id, retries: 0, timeoutMs: 30_000 })),
    );
    await agents[0]!.createPlan({ title: 'Stop', steps: ['one'] });
    redis.signal('SIGSTOP');
    const running = agents[0]!.getPlanStatus({}).catch((err: unknown) => err);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    await server.close();
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(GRACE_MS + AFTER_DRAIN_MS + SLACK_MS);
    // The running call was answered or cut, never left hanging.
    await running;
    for (const agent of agents) agent.close();
  }, 60_000);
});
