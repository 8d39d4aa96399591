import type { PlanHubClient } from '@planhub/client-sdk';
import { connect } from '@planhub/client-sdk';
import type { PlanHubServer } from '@planhub/server';
import { createServer } from '@planhub/server';
import type { EventEnvelope } from '@planhub/shared';
import { compareEventIds } from '@planhub/shared';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { refusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, uniquePrefix, type Harness } from '../helpers/servers.ts';
import { deletePrefix } from '../helpers/stores.ts';
import { rounds } from '../helpers/stress.ts';

const BASE = 10;
/** Rounds scale with PLANHUB_STRESS; the per-agent rate limit must not be what a soak measures. */
const RACE_CONFIG = { approvalPolicy: 'auto', limits: { callsPerSecond: 100_000 } } as const;

/** The events of one plan, from the workspace log itself. */
const planEvents = async (server: PlanHubServer, planId: string): Promise<EventEnvelope[]> =>
  (await server.services.store.readEvents('ws', { after: '0-0', count: 10_000 })).filter(
    (e) => e.source_plan_id === planId,
  );

/**
 * One round: a started plan of 10 steps, then 10 addStep and 10 setStepStatus calls all at once, spread over the
 * clients (all the same agent). Every call must land: 20 steps, the 10 base steps completed, 10 new ones pending,
 * one event per change in log order.
 */
const raceRound = async (clients: readonly PlanHubClient[], server: PlanHubServer, round: number) => {
  const owner = clients[0]!;
  const { plan_id } = await owner.createPlan({
    title: `Race ${round}`,
    steps: Array.from({ length: BASE }, (_, i) => `base ${i + 1}`),
  });
  expect(await owner.startPlan({})).toMatchObject({ status: 'in_progress' });
  const calls = Array.from({ length: 2 * BASE }, async (_, i) => {
    const client = clients[i % clients.length]!;
    const n = Math.floor(i / 2) + 1;
    if (i % 2 === 0) return (await client.addStep({ description: `extra ${n}` })).step.id;
    await client.setStepStatus({ step_id: `step_${n}`, status: 'completed', result: `done ${n}` });
    return undefined;
  });
  const addedIds = (await Promise.all(calls)).filter((id) => id !== undefined);

  const plan = await owner.getPlanStatus({ plan_id });
  expect(plan.steps).toHaveLength(2 * BASE);
  const base = plan.steps.filter((s) => s.description.startsWith('base'));
  const extra = plan.steps.filter((s) => s.description.startsWith('extra'));
  expect(base.map((s) => [s.id, s.status, s.result])).toEqual(
    Array.from({ length: BASE }, (_, i) => [`step_${i + 1}`, 'completed', `done ${i + 1}`]),
  );
  expect(extra.map((s) => s.status)).toEqual(Array(BASE).fill('pending'));
  expect(extra.map((s) => s.description).sort()).toEqual(
    Array.from({ length: BASE }, (_, i) => `extra ${i + 1}`).sort(),
  );
  expect(new Set(addedIds)).toEqual(new Set(extra.map((s) => s.id)));
  expect(new Set(plan.steps.map((s) => s.id)).size).toBe(2 * BASE);
  expect(plan.steps.map((s) => s.sequence)).toEqual(Array.from({ length: 2 * BASE }, (_, i) => i + 1));
  expect(plan.progress).toMatchObject({ completed: BASE, pending: BASE, total: 2 * BASE });

  const events = await planEvents(server, plan_id);
  expect(events.filter((e) => e.event_type === 'step_added')).toHaveLength(BASE);
  expect(events.filter((e) => e.event_type === 'step_completed')).toHaveLength(BASE);
  for (let i = 1; i < events.length; i++)
    expect(compareEventIds(events[i]!.event_id, events[i - 1]!.event_id)).toBeGreaterThan(0);

  await owner.completePlan({ plan_id, status: 'failed', summary: 'race round over' });
  return plan;
};

describe.each(STORE_KINDS)('races on the %s store', (kind) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('loses no update when 20 addStep and setStepStatus calls from two sockets of one agent run at once', async () => {
    h = await startHarness(kind, RACE_CONFIG);
    const clients = [await h.client('main'), await h.client('main')];
    for (let round = 0; round < rounds(5); round++) await raceRound(clients, h.server, round);
  });

  it('applies parallel calls with the same request_id once and gives every caller the same answer', async () => {
    h = await startHarness(kind, RACE_CONFIG);
    const [a, b] = [await h.client('main'), await h.client('main')];
    for (let round = 0; round < rounds(5); round++) {
      const { plan_id } = await a.createPlan({ title: `Once ${round}`, steps: ['first'] });
      await a.startPlan({});
      const requestId = `same-${round}`;
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).addStep({ description: 'only once' }, { requestId })),
      );
      for (const answer of answers) expect(answer).toEqual(answers[0]);
      const plan = await a.getPlanStatus({ plan_id });
      expect(plan.steps.map((s) => s.description)).toEqual(['first', 'only once']);
      expect((await planEvents(h.server, plan_id)).filter((e) => e.event_type === 'step_added')).toHaveLength(1);
      await a.completePlan({ plan_id, status: 'cancelled' });
    }
  });
});

describe('two servers on one Redis', () => {
  const servers: PlanHubServer[] = [];
  const clients: PlanHubClient[] = [];
  let prefix: string;
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await Promise.all(servers.splice(0).map((s) => s.close()));
    await deletePrefix(inject('redisUrl'), prefix);
  });

  const twoNodes = async () => {
    prefix = uniquePrefix();
    for (let i = 0; i < 2; i++)
      servers.push(
        createServer({
          port: 0,
          logLevel: 'silent',
          ...RACE_CONFIG,
          redisUrl: inject('redisUrl'),
          redisPrefix: prefix,
        }),
      );
    const urls = await Promise.all(servers.map(async (s) => (await s.listen()).url));
    for (const url of urls) clients.push(await connect({ url, agentId: 'main', workspace: 'ws' }));
    expect(new Set(urls).size).toBe(2);
    return { nodeA: clients[0]!, nodeB: clients[1]!, server: servers[0]! };
  };

  it('serve the same agent with the same answers and lose no update under racing calls', async () => {
    const { nodeA, nodeB, server } = await twoNodes();
    for (let round = 0; round < rounds(5); round++) {
      const plan = await raceRound([nodeA, nodeB], server, round);
      expect(await nodeA.getPlanStatus({ plan_id: plan.plan_id })).toEqual(
        await nodeB.getPlanStatus({ plan_id: plan.plan_id }),
      );
    }
    // Both nodes agree the agent has no current plan once the last round ended it, and name the same last plan.
    const [a, b] = [await refusal(nodeA.getPlanStatus({})), await refusal(nodeB.getPlanStatus({}))];
    expect(a.code).toBe('NOT_FOUND');
    expect(a.message).toMatch(/^No plan found for this agent\./);
    expect(a).toEqual(b);
  });

  it('apply a request_id once when the same call reaches both nodes at once', async () => {
    const { nodeA, nodeB, server } = await twoNodes();
    const { plan_id } = await nodeA.createPlan({ title: 'Once', steps: ['first'] });
    await nodeB.startPlan({});
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? nodeA : nodeB).setStepStatus({ step_id: 'step_1', status: 'completed' }, { requestId: 'r-1' }),
      ),
    );
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect((await planEvents(server, plan_id)).filter((e) => e.event_type === 'step_completed')).toHaveLength(1);
  });
});
