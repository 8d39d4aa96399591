import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { createServer, type PlanHubServer } from '@planhub/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.ts';
import { rounds } from '../helpers/stress.ts';

const DEADLINE_MS = 2000;

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => new Error('the call succeeded'),
    (err: unknown) => err,
  );

describe('a hung Redis (SIGSTOP)', () => {
  let redis: RedisProcess;
  let server: PlanHubServer;
  let agent: PlanHubClient;

  beforeAll(async () => {
    redis = await startRedisProcess();
    server = createServer({
      port: 0,
      logLevel: 'silent',
      redisUrl: redis.url,
      redisPrefix: 'hung',
      approvalPolicy: 'auto',
      storeDeadlineMs: DEADLINE_MS,
    });
    const { url } = await server.listen();
    // No SDK retries: the answer below is the node's own.
    agent = await connect({ url, workspace: 'ws', agentId: 'main', retries: 0, timeoutMs: 30_000 });
    await agent.createPlan({ title: 'Hung', steps: ['one', 'two'] });
    await agent.startPlan({});
  });

  afterAll(async () => {
    redis?.signal('SIGCONT');
    agent?.close();
    await server?.close();
    await redis?.dispose();
  });

  it('answers each call UNAVAILABLE after one deadline for all its round trips, then serves again', async () => {
    redis.signal('SIGSTOP');
    for (let round = 0; round < rounds(1); round++) {
      const started = performance.now();
      // A write: the rate limit, the plan's load, the request-log lookup and the commit are separate round trips.
      const err = await failure(
        agent.call('setStepStatus', { step_id: 'step_1', status: 'completed' }, { requestId: `hung-${round}` }),
      );
      const elapsed = performance.now() - started;
      expect(err).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
      // The specification itself, not a speed target: one deadline, where a timeout per round trip took several.
      expect(elapsed).toBeLessThan(2 * DEADLINE_MS);
    }
    redis.signal('SIGCONT');
    await eventually(async () =>
      expect(
        await agent.call('setStepStatus', { step_id: 'step_1', status: 'completed' }, { requestId: 'hung-0' }),
      ).toMatchObject({
        plan_id: expect.any(String) as unknown,
      }),
    );
  });
});
