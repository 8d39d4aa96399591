import type { Plan } from '@planhub/shared';
import { newPlan } from '@planhub/server';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { STORE_KINDS, startHarness, uniquePrefix, type Harness } from '../helpers/servers.ts';

const NOW = '2026-01-01T00:00:00.000Z';

/** A running plan as the earlier layout stored it: one document holding every step. */
const wholePlan = (): Plan => ({
  ...newPlan({
    plan_id: 'p',
    workspace: 'ws',
    agent_id: 'a',
    title: 'Whole',
    dialect: '000',
    steps: ['one', 'two', 'three'].map((description) => ({ description })),
    now: NOW,
  }),
  status: 'in_progress',
});
const agentDoc = {
  agent_id: 'a',
  plans: [{ plan_id: 'p', dialect: '000', finished: false, created_at: NOW, changed_at: NOW }],
};

/** Writes documents raw: Redis commands on Redis (a hash { v, d } each, as every version stored them). */
const writeRaw = async (h: Harness, prefix: string | undefined, docs: Record<string, unknown>) => {
  if (prefix === undefined) {
    const writes = Object.entries(docs).map(([key, value]) => ({ key, value }));
    expect((await h.server.services.store.commit('ws', { reads: [], writes, events: [] })).ok).toBe(true);
    return;
  }
  const redis = new Redis(inject('redisUrl'));
  try {
    for (const [key, value] of Object.entries(docs))
      await redis.hset(`${prefix}:{ws}:doc:${key}`, 'v', '7', 'd', JSON.stringify(value));
  } finally {
    redis.disconnect();
  }
};

describe.each(STORE_KINDS)('a plan stored as a header and one document per step (%s store)', (kind) => {
  let h: Harness;
  afterEach(async () => h.close());
  const start = async () => {
    const prefix = kind === 'redis' ? uniquePrefix() : undefined;
    h = await startHarness(kind, { approvalPolicy: 'auto', ...(prefix ? { redisPrefix: prefix } : {}) });
    return prefix;
  };

  it('reads a plan of the earlier layout and upgrades it in place on its next write', async () => {
    const prefix = await start();
    await writeRaw(h, prefix, { 'plan:p': wholePlan(), 'agent:a': agentDoc });
    const a = await h.client('a');
    expect((await a.getPlanStatus({})).steps.map((s) => s.status)).toEqual(['pending', 'pending', 'pending']);

    await a.setStepStatus({ step_id: 'step_2', status: 'completed', result: 'done' });
    const [root, two, three] = await h.server.services.store.load('ws', ['plan:p', 'step:p:step_2', 'step:p:step_3']);
    expect(root?.value).toMatchObject({
      plan_id: 'p',
      status: 'in_progress',
      step_ids: ['step_1', 'step_2', 'step_3'],
    });
    expect(root?.value).not.toHaveProperty('steps');
    expect(two?.value).toMatchObject({ step: { id: 'step_2', status: 'completed', result: 'done' }, waiters: [] });
    expect(three?.value).toMatchObject({ step: { id: 'step_3', status: 'pending' } });
    const status = await a.getPlanStatus({});
    expect(status.steps.map((s) => s.status)).toEqual(['pending', 'completed', 'pending']);
    expect(status.progress).toMatchObject({ completed: 1, total: 3 });
  });

  it('writes only the changed step on a step change, and the owner index only when a plan appears or ends', async () => {
    await start();
    const a = await h.client('a');
    const plan = await a.createPlan({ title: 'Split', steps: ['one', 'two'] });
    await a.startPlan({});
    const keys = ['plan:' + plan.plan_id, `step:${plan.plan_id}:step_1`, `step:${plan.plan_id}:step_2`, 'agent:a'];
    const versions = async () => (await h.server.services.store.load('ws', keys)).map((d) => d.version);
    const [header, one, two, index] = await versions();
    await a.setStepStatus({ step_id: 'step_1', status: 'completed' });
    expect(await versions()).toEqual([header, (one ?? 0) + 1, two, index]);
    const status = await a.getPlanStatus({});
    // The plan changed when its step did, though its header did not.
    expect(status.updated_at).toBe(status.steps[0]?.completed_at);
    await a.completePlan({ status: 'completed' });
    const after = await versions();
    expect(after[0]).toBeGreaterThan(header ?? 0);
    expect(after[3]).toBeGreaterThan(index ?? 0);
  });

  it('answers INTERNAL naming a corrupt step document, and a missing one', async () => {
    await start();
    const a = await h.client('a');
    const plan = await a.createPlan({ title: 'Split', steps: ['one', 'two'] });
    const key = `step:${plan.plan_id}:step_2`;
    await writeRaw(h, undefined, { [key]: { step: { id: 'step_2' }, waiters: [], updated_at: NOW } });
    await expect(a.getPlanStatus({ plan_id: plan.plan_id })).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining(`The stored document ${key} is corrupt`) as string,
    });
    await writeRaw(h, undefined, { [key]: null });
    await expect(a.getPlanStatus({ plan_id: plan.plan_id })).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining(key) as string,
    });
  });
});
