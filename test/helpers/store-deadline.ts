import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { createServer, type PlanHubServer } from '@planhub/server';
import { startRedisProcess, type RedisProcess } from './redis-process.ts';

/** The error a call ended with, or an Error saying it succeeded (the tests expect a failure). */
export const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => new Error('the call succeeded'),
    (err: unknown) => err,
  );

export interface DeadlineSetup {
  redis: RedisProcess;
  server: PlanHubServer;
  agent: PlanHubClient;
  close(): Promise<void>;
}

/**
 * A node on its own Redis with a store deadline of `deadlineMs`, and an agent with a started plan of `steps`. The
 * agent makes no SDK retries: the answers the tests check are the node's own.
 */
export const startDeadlineSetup = async (deadlineMs: number, steps: string[]): Promise<DeadlineSetup> => {
  const redis = await startRedisProcess();
  const server = createServer({
    port: 0,
    logLevel: 'silent',
    redisUrl: redis.url,
    redisPrefix: 'deadline',
    approvalPolicy: 'auto',
    storeDeadlineMs: deadlineMs,
  });
  const { url } = await server.listen();
  const agent = await connect({ url, workspace: 'ws', agentId: 'main', retries: 0, timeoutMs: 30_000 });
  await agent.createPlan({ title: 'Deadline', steps });
  await agent.startPlan({});
  return {
    redis,
    server,
    agent,
    async close() {
      redis.signal('SIGCONT');
      agent.close();
      await server.close();
      await redis.dispose();
    },
  };
};
