import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { createServer, type PlanHubServer } from '@planhub/server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.ts';
import { rounds } from '../helpers/stress.ts';

const PREFIX = 'soak';
const KEPT = 3;
const AGENTS = 3;
/** Rounds of one plan per agent; retention applies from round KEPT + 1 on, well within the first half. */
const ROUNDS = rounds(40);
/** Every other store of the workspace bounded too, so the run measures what plans leave behind. */
const EVENTS_KEPT = 300;
const REQUESTS_KEPT = 30;

interface Sample {
  keys: number;
  bytes: number;
  /**
   * Keys and bytes of plan state: everything but the event log, the request log (each bounded by its own retention)
   * and the rate limiter's windows (one per caller, gone with their TTL and back with the next call).
   */
  stateKeys: number;
  stateBytes: number;
  planHeaders: number;
  stepDocs: number;
}

/** Every key under the test's prefix (SCAN) and its size (MEMORY USAGE, every element counted). */
const sample = async (redis: Redis): Promise<Sample> => {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${PREFIX}:*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
  const sizes = ((await pipeline.exec()) ?? []).map(([, size]) => Number(size ?? 0));
  const state = keys
    .map((key, i) => ({ key, size: sizes[i] ?? 0 }))
    .filter(({ key }) => !/:(events|req|reqs)(:|$)/.test(key) && !key.startsWith(`${PREFIX}:rl:`));
  return {
    keys: keys.length,
    bytes: sizes.reduce((a, b) => a + b, 0),
    stateKeys: state.length,
    stateBytes: state.reduce((a, s) => a + s.size, 0),
    planHeaders: keys.filter((k) => k.includes(':doc:plan:')).length,
    stepDocs: keys.filter((k) => k.includes(':doc:step:')).length,
  };
};

const most = (samples: readonly Sample[], field: keyof Sample) => Math.max(...samples.map((s) => s[field]));

/**
 * One round: every agent makes a plan; the others' first step waits on the first agent's (a cross-agent
 * dependency: waiter lists, outstanding sets, edges, received outputs); the first agent's output unblocks them; then
 * every step completes and every plan finishes.
 */
const round = async (agents: readonly PlanHubClient[], n: number) => {
  const [lead, ...rest] = agents;
  if (!lead) throw new Error('no agents');
  const plans = await Promise.all(
    agents.map(async (agent, i) => {
      const plan = await agent.createPlan({ title: `Round ${n} of agent ${i}`, steps: ['produce', 'build', 'ship'] });
      await agent.startPlan({});
      return plan.plan_id;
    }),
  );
  const leadPlan = plans[0] ?? '';
  await Promise.all(
    rest.map((agent) =>
      agent.addDependentStep({
        step_id: 'step_1',
        depends_on: [{ agent_id: 'agent-0', step_id: 'step_1', plan_id: leadPlan }],
      }),
    ),
  );
  await lead.completeStepWithOutput({ step_id: 'step_1', output: { round: n, artifact: 'x'.repeat(200) } });
  await Promise.all(
    agents.map(async (agent, i) => {
      if (i > 0) await agent.setStepStatus({ step_id: 'step_1', status: 'completed' });
      await agent.setStepStatus({ step_id: 'step_2', status: 'completed', result: 'built' });
      await agent.setStepStatus({ step_id: 'step_3', status: 'completed', result: 'shipped' });
      await agent.completePlan({ status: 'completed', summary: `round ${n}` });
    }),
  );
};

describe('finished-plan retention over a soak on a real Redis', () => {
  let redis: RedisProcess;
  let raw: Redis;
  let server: PlanHubServer;
  const agents: PlanHubClient[] = [];

  beforeAll(async () => {
    redis = await startRedisProcess();
    raw = new Redis(redis.url);
    server = createServer({
      port: 0,
      logLevel: 'silent',
      redisUrl: redis.url,
      redisPrefix: PREFIX,
      approvalPolicy: 'auto',
      finishedPlansKept: KEPT,
      eventRetention: EVENTS_KEPT,
      limits: { requestsPerAgent: REQUESTS_KEPT, callsPerSecond: 100_000 },
    });
    const { url } = await server.listen();
    for (let i = 0; i < AGENTS; i++) agents.push(await connect({ url, workspace: 'ws', agentId: `agent-${i}` }));
  });

  afterAll(async () => {
    for (const agent of agents) agent.close();
    await server?.close();
    raw?.disconnect();
    await redis?.dispose();
  });

  it(`keeps the keys and bytes under its prefix flat once retention applies (${ROUNDS} rounds)`, async () => {
    const samples: Sample[] = [];
    for (let n = 1; n <= ROUNDS; n++) {
      await round(agents, n);
      const s = await sample(raw);
      samples.push(s);
      // Every agent keeps at most KEPT finished plans, whatever the round: a header and three steps each.
      expect(s.planHeaders).toBeLessThanOrEqual(AGENTS * KEPT);
      expect(s.stepDocs).toBeLessThanOrEqual(AGENTS * KEPT * 3);
    }
    expect(samples.at(-1)).toMatchObject({ planHeaders: AGENTS * KEPT, stepDocs: AGENTS * KEPT * 3 });
    const half = Math.floor(ROUNDS / 2);
    const first = samples.slice(0, half);
    const second = samples.slice(half);
    const report = JSON.stringify({ first: first.at(-1), last: second.at(-1) });
    // Plan state stops growing: the second half never holds more keys, nor more bytes, than the first did.
    expect(most(second, 'stateKeys'), report).toBeLessThanOrEqual(most(first, 'stateKeys'));
    expect(most(second, 'stateBytes'), report).toBeLessThanOrEqual(most(first, 'stateBytes'));
    // The whole prefix, event and request logs included: flat within the allocator's slack and the rate limiter's
    // windows (one per caller). Without retention each round added 16 keys and about 9 KB for good (measured).
    expect(most(second, 'keys'), report).toBeLessThanOrEqual(most(first, 'keys') + AGENTS + 1);
    expect(most(second, 'bytes'), report).toBeLessThanOrEqual(most(first, 'bytes') * 1.05);
  });
});
