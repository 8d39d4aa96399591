import type { Plan } from '@planhub/shared';
import { newPlan } from '@planhub/server';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { recordEvents } from '../helpers/event-log.ts';
import { STORE_KINDS, startHarness, uniquePrefix, type Harness } from '../helpers/servers.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const ref = (agent_id: string, plan_id: string) => ({ agent_id, plan_id, step_id: 'step_1' });
const running = (plan_id: string, agent_id: string, steps: string[]): Plan => ({
  ...newPlan({
    plan_id,
    workspace: 'ws',
    agent_id,
    title: plan_id,
    dialect: '000',
    steps: steps.map((description) => ({ description })),
    now: NOW,
  }),
  status: 'in_progress',
});
const agentDoc = (agent_id: string, plan_id: string) => ({
  agent_id,
  plans: [{ plan_id, dialect: '000', finished: false, created_at: NOW, changed_at: NOW }],
});

/**
 * The documents an earlier version wrote for: a parent step waiting on two subagents' steps, one of which already
 * completed (its output delivered into the parent plan), with the workspace-wide graph and agent index documents.
 */
const legacyDocs = (): Record<string, unknown> => {
  const parent = running('pp', 'parent', ['wait for both']);
  const first = running('s1', 'sub1', ['build']);
  const second = running('s2', 'sub2', ['test']);
  parent.steps[0] = {
    ...(parent.steps[0] as Plan['steps'][number]),
    status: 'blocked',
    depends_on: [ref('sub1', 's1'), ref('sub2', 's2')],
    blocked_by: [ref('sub1', 's1')],
    received_outputs: { 'sub2:step_1': { tests: 'green' } },
  };
  first.waiters = { step_1: [ref('parent', 'pp')] };
  second.steps[0] = { ...(second.steps[0] as Plan['steps'][number]), status: 'completed', output: { tests: 'green' } };
  return {
    'plan:pp': parent,
    'plan:s1': first,
    'plan:s2': second,
    'agent:parent': agentDoc('parent', 'pp'),
    'agent:sub1': agentDoc('sub1', 's1'),
    'agent:sub2': agentDoc('sub2', 's2'),
    agents: { agents: ['parent', 'sub1', 'sub2'] },
    deps: { 'pp:step_1': ['s1:step_1'] },
  };
};

/** Writes the documents as the earlier version stored them: a hash { v, d } per document (raw Redis commands). */
const writeLegacy = async (h: Harness, prefix: string | undefined) => {
  const docs = legacyDocs();
  if (prefix === undefined) {
    const outcome = await h.server.services.store.commit('ws', {
      reads: [],
      writes: Object.entries(docs).map(([key, value]) => ({ key, value })),
      events: [],
    });
    expect(outcome.ok).toBe(true);
    return;
  }
  const redis = new Redis(inject('redisUrl'));
  try {
    for (const [key, value] of Object.entries(docs))
      await redis.hset(`${prefix}:{ws}:doc:${key}`, 'v', '1', 'd', JSON.stringify(value));
  } finally {
    redis.disconnect();
  }
};

describe.each(STORE_KINDS)('state written by an earlier version (%s store)', (kind) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('reads it, upgrades it in place and gives the same answers', async () => {
    const prefix = kind === 'redis' ? uniquePrefix() : undefined;
    h = await startHarness(kind, { approvalPolicy: 'auto', ...(prefix ? { redisPrefix: prefix } : {}) });
    await writeLegacy(h, prefix);
    const parent = await h.client('parent');
    const sub1 = await h.client('sub1');

    expect((await parent.getPlanStatus({})).steps[0]).toMatchObject({
      status: 'blocked',
      blocked_by: [ref('sub1', 's1')],
      received_outputs: { 'sub2:step_1': { tests: 'green' } },
    });
    expect((await parent.getWorkspace({})).agents.map((a) => a.agent_id)).toEqual(['parent', 'sub1', 'sub2']);
    // The old graph's edge still counts: sub1's step waiting on the parent's would close a cycle.
    await expect(
      sub1.addDependentStep({ step_id: 'step_1', depends_on: [{ agent_id: 'parent', step_id: 'step_1' }] }),
    ).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringMatching(/cycle/) as string });

    const log = recordEvents(parent);
    await parent.subscribeToTasks({ event_types: ['step_unblocked'] });
    const done = await sub1.completeStepWithOutput({ step_id: 'step_1', output: { built: true } });
    expect(done.unblocked).toEqual([ref('parent', 'pp')]);
    const unblocked = await log.next((e) => e.event_type === 'step_unblocked');
    expect(unblocked.payload.received_outputs).toEqual(['sub1:step_1', 'sub2:step_1']);
    expect((await parent.getPlanStatus({})).steps[0]).toMatchObject({
      status: 'pending',
      blocked_by: [],
      received_outputs: { 'sub1:step_1': { built: true }, 'sub2:step_1': { tests: 'green' } },
    });
    // Upgraded: the workspace-wide graph is gone and the subagent's plan no longer holds the parent's wait.
    // The plan it wrote is stored as a header and one document per step.
    const [graph, first, step] = await h.server.services.store.load('ws', ['deps', 'plan:s1', 'step:s1:step_1']);
    expect(graph?.value).toBeUndefined();
    expect(first?.value).toMatchObject({ plan_id: 's1', step_ids: ['step_1'] });
    expect(first?.value).not.toHaveProperty('steps');
    expect(step?.value).toMatchObject({ step: { id: 'step_1', status: 'completed' }, waiters: [] });
  });
});
