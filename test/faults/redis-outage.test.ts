import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { PlanHubClient } from '@planhub/client-sdk';
import { connect } from '@planhub/client-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.ts';

const SERVER_DIR = fileURLToPath(new URL('../../server/', import.meta.url));

interface NodeProcess {
  child: ChildProcess;
  url: string;
  /** Every log line so far. */
  logs: string[];
}

/** A real node process (`pnpm start`'s entry), so a crash would show as an exit, not as a test-runner error. */
const startNode = (redisUrl: string) =>
  new Promise<NodeProcess>((resolve, reject) => {
    const child = spawn(`${SERVER_DIR}node_modules/.bin/tsx`, ['src/main.ts'], {
      cwd: SERVER_DIR,
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        REDIS_URL: redisUrl,
        REDIS_PREFIX: 'fault',
        LOG_LEVEL: 'info',
        PLANHUB_APPROVAL_POLICY: 'auto',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const logs: string[] = [];
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        logs.push(line);
        const url = /"url":"([^"]+)"/.exec(line)?.[1];
        if (url && line.includes('PlanHub listening')) resolve({ child, url, logs });
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
    child.once('exit', (code) => reject(new Error(`the node exited with ${code}:\n${logs.join('\n')}`)));
  });

const status = async (url: string, path: string) => (await fetch(`${url}${path}`)).status;

describe('a node whose Redis goes down and comes back', () => {
  let redis: RedisProcess;
  let node: NodeProcess;
  let agent: PlanHubClient;
  let planId: string;

  beforeAll(async () => {
    redis = await startRedisProcess({ durable: true });
    node = await startNode(redis.url);
    // No SDK retries: each answer below is the node's own. A node that hung would show as DEADLINE_EXCEEDED.
    agent = await connect({ url: node.url, workspace: 'ws', agentId: 'main', retries: 0, timeoutMs: 10_000 });
    planId = (await agent.createPlan({ title: 'Survive', steps: ['one', 'two', 'three'] })).plan_id;
    await agent.startPlan({});
    await agent.setStepStatus({ step_id: 'step_1', status: 'completed' });
  });

  afterAll(async () => {
    agent?.close();
    if (node && node.child.exitCode === null) {
      const exited = new Promise((resolve) => node.child.once('exit', resolve));
      node.child.kill('SIGTERM');
      await exited;
    }
    await redis?.dispose();
  });

  it('answers UNAVAILABLE at once while Redis is down, and stays up', async () => {
    expect(await status(node.url, '/readyz')).toBe(200);
    await redis.kill();
    await expect.poll(() => status(node.url, '/readyz')).toBe(503);

    const calls = [
      () => agent.getPlanStatus({}),
      () => agent.setStepStatus({ step_id: 'step_2', status: 'completed' }),
      () => agent.addStep({ description: 'during the outage' }),
      () => agent.createPlan({ title: 'New', steps: ['x'] }),
      () => agent.getTaskEvents({ limit: 5 }),
    ];
    for (let round = 0; round < 4; round++)
      for (const call of calls) {
        const err = await call().then(
          () => new Error('the call succeeded with Redis down'),
          (e: unknown) => e,
        );
        expect(err).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
        expect((err as Error).message).toMatch(/store is unreachable.*retry/);
        expect((err as Error).message).not.toMatch(/ECONNREFUSED|writeable|MaxRetries|Connection is closed/);
      }

    expect(await status(node.url, '/healthz')).toBe(200);
    expect(node.child.exitCode).toBeNull();
    expect(agent.state).toBe('connected');
  });

  it('serves again when Redis returns, without a restart, with nothing acknowledged lost', async () => {
    const pid = node.child.pid;
    await redis.start();
    await expect.poll(() => status(node.url, '/readyz'), { timeout: 15_000 }).toBe(200);
    const plan = await agent.getPlanStatus({ plan_id: planId });
    expect(plan.steps.map((s) => [s.id, s.status])).toEqual([
      ['step_1', 'completed'],
      ['step_2', 'pending'],
      ['step_3', 'pending'],
    ]);
    const before = await agent.getTaskEvents({ limit: 100 });
    await agent.setStepStatus({ step_id: 'step_2', status: 'completed' });
    await agent.addStep({ description: 'after the outage' });
    const after = await agent.getTaskEvents({ after_event: before.last_event_id!, limit: 100 });
    expect(after.events.map((e) => e.event_type)).toEqual(['step_completed', 'step_added']);
    expect(node.child.pid).toBe(pid);
    expect(node.child.exitCode).toBeNull();
    expect(node.logs.join('\n')).not.toMatch(/"level":60|unhandled|uncaught/i);
  });
});
