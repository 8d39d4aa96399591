import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { createLogger, createServer, type PlanHubServer } from '@planhub/server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startedPlan } from '../helpers/event-log.ts';
import { eventually } from '../helpers/eventually.ts';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.ts';

const PREFIX = 'loss';

interface Node {
  server: PlanHubServer;
  url: string;
  /** Every log line (JSON) so far. */
  lines: string[];
}

const startNode = async (redisUrl: string): Promise<Node> => {
  const lines: string[] = [];
  const log = createLogger('info', { write: (line: string) => void lines.push(line) });
  const server = createServer({ port: 0, redisUrl, redisPrefix: PREFIX, approvalPolicy: 'auto' }, { log });
  const { url } = await server.listen();
  return { server, url, lines };
};

const readiness = async (url: string) => {
  const res = await fetch(`${url}/readyz`);
  return { http: res.status, ...((await res.json()) as { reason?: string }) };
};

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => new Error('the call succeeded'),
    (err: unknown) => err,
  );

const lossLines = (node: Node) =>
  node.lines.filter((line) => line.includes('"level":50') && line.includes('epoch_expected'));

/** Seen as DATA_LOSS, with the message a model can act on. */
const DATA_LOSS: unknown = expect.objectContaining({
  code: 'DATA_LOSS',
  retryable: false,
  message: expect.stringMatching(/lost its data.*create a new plan/s) as unknown,
});

describe('Redis wiped under a running node', () => {
  let redis: RedisProcess;
  let raw: Redis;
  let node: Node;
  let agent: PlanHubClient;
  let parent: PlanHubClient;

  beforeAll(async () => {
    redis = await startRedisProcess();
    raw = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    raw.on('error', () => undefined);
    node = await startNode(redis.url);
    agent = await connect({ url: node.url, workspace: 'ws', agentId: 'main', retries: 0 });
    parent = await connect({ url: node.url, workspace: 'ws', agentId: 'parent', retries: 0 });
  });

  afterAll(async () => {
    agent?.close();
    parent?.close();
    await node?.server.close();
    raw?.disconnect();
    await redis?.dispose();
  });

  it('FLUSHALL: calls answer DATA_LOSS, waits end, /readyz says so, an answered request_id is not run again', async () => {
    const args = { title: 'Before the wipe', steps: ['one', 'two'] };
    const { plan_id } = await agent.call('createPlan', args, { requestId: 'create-1' });
    expect(await readiness(node.url)).toMatchObject({ http: 200 });
    // A parent blocked on a wait: it must be told, not left waiting for an unblock that can no longer come.
    const errors: unknown[] = [];
    parent.on('error', (err) => errors.push(err));
    await parent.subscribeToTasks({ event_types: ['step_unblocked'] });
    const waiting = failure(parent.getTaskEvents({ event_types: ['step_unblocked'], timeout: 30 }));

    await raw.flushall();

    expect(await waiting).toEqual(DATA_LOSS);
    // Its subscription too: the node drops its connections, and renewing the subscription answers DATA_LOSS.
    await eventually(() => expect(errors).toContainEqual(DATA_LOSS));
    expect(await readiness(node.url)).toMatchObject({ http: 503, reason: 'store_data_lost' });
    const status = await failure(agent.getPlanStatus({ plan_id }));
    expect(status).toEqual(DATA_LOSS);
    expect((status as Error).message).toContain(`Your plan "${plan_id}" no longer exists`);
    // The retry of a call answered before the wipe: refused, and nothing was created.
    expect(await failure(agent.call('createPlan', args, { requestId: 'create-1' }))).toEqual(DATA_LOSS);
    expect(await failure(agent.createPlan({ title: 'New work', steps: ['x'] }))).toEqual(DATA_LOSS);
    expect(await raw.keys(`${PREFIX}:{*`)).toEqual([]);
    // Loud once, not once per call.
    expect(lossLines(node)).toHaveLength(1);
  });

  it('Redis restarted empty: a waiting parent is told DATA_LOSS, an answered request_id creates nothing, /readyz stays 503', async () => {
    // The first node refuses everything now; one started on the wiped store adopts it, as a restarted node does.
    const fresh = await startNode(redis.url);
    const sub = await connect({ url: fresh.url, workspace: 'ws', agentId: 'sub', retries: 0 });
    // The SDK's own retries: a wait cut by the outage (UNAVAILABLE) is waited again, as an agent's would be.
    const waiter = await connect({ url: fresh.url, workspace: 'ws', agentId: 'waiter' });
    try {
      const args = { title: 'After the restart', steps: ['one'] };
      const { plan_id } = await sub.call('createPlan', args, { requestId: 'create-2' });
      expect((await sub.getPlanStatus({ plan_id })).plan_id).toBe(plan_id);
      expect(await readiness(fresh.url)).toMatchObject({ http: 200 });
      // A parent whose step waits on the subagent's step, subscribed to the unblock and long-polling for it.
      await startedPlan(waiter, 'Parent', ['gather']);
      const added = await waiter.addDependentStep({
        step_id: 'step_1',
        depends_on: [{ agent_id: 'sub', step_id: 'step_1' }],
      });
      expect(added.blocked_by).toEqual([{ agent_id: 'sub', plan_id, step_id: 'step_1' }]);
      const errors: unknown[] = [];
      waiter.on('error', (err) => errors.push(err));
      await waiter.subscribeToTasks({ event_types: ['step_unblocked'] });
      expect(waiter.subscriptionState.state).toBe('live');
      const waiting = failure(waiter.getTaskEvents({ event_types: ['step_unblocked'], timeout: 20 }));

      await redis.kill();
      await redis.start();

      // Its first answer after the reconnect is DATA_LOSS, never "you have no plan".
      await eventually(async () => expect(await failure(sub.getPlanStatus({ plan_id }))).toEqual(DATA_LOSS));
      // The parent is told, on its wait and on its subscription, instead of waiting for an unblock that cannot come.
      expect(await waiting).toEqual(DATA_LOSS);
      await eventually(() => expect(errors).toContainEqual(DATA_LOSS));
      expect(waiter.subscriptionState).toMatchObject({ state: 'failed-retrying', error: DATA_LOSS });

      // The retry of a call answered before the restart: refused, and nothing was created.
      expect(await failure(sub.call('createPlan', args, { requestId: 'create-2' }))).toEqual(DATA_LOSS);
      expect(await raw.keys(`${PREFIX}:{*`)).toEqual([]);

      // Not ready, on every probe while the parent's renewals keep failing (each one a backoff apart): no blink back
      // to 200 between the loss and a restart of the node.
      const probes: { http: number; reason?: string }[] = [];
      const renewing = () => waiter.subscriptionState.state === 'failed-retrying';
      while (probes.length < 10 || (renewing() && waiter.subscriptionState.attempt < 3))
        probes.push(await readiness(fresh.url));
      expect(new Set(probes.map((p) => `${p.http} ${p.reason}`))).toEqual(new Set(['503 store_data_lost']));
      expect(waiter.subscriptionState).toMatchObject({ state: 'failed-retrying', error: DATA_LOSS });
      // Loud once, however many calls, probes and renewals met the loss.
      expect(lossLines(fresh)).toHaveLength(1);
    } finally {
      sub.close();
      waiter.close();
      await fresh.server.close();
    }
  });
});
