import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { startHarness, uniquePrefix, type Harness } from '../helpers/servers.ts';

describe('a corrupt stored document', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('answers INTERNAL naming the key when a plan has the wrong shape, and the server keeps serving others', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const agent = await h.client('agent');
    const plan = await agent.createPlan({ title: 'P', steps: ['a'] });
    await h.server.services.store.commit('ws', {
      reads: [],
      writes: [{ key: `plan:${plan.plan_id}`, value: { plan_id: plan.plan_id, steps: 'not a list' } }],
      events: [],
    });
    await expect(agent.getPlanStatus({ plan_id: plan.plan_id })).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining(`plan:${plan.plan_id}`) as string,
    });
    const other = await h.client('other');
    expect((await other.createPlan({ title: 'Q', steps: ['b'] })).plan_id).not.toBe(plan.plan_id);
  });

  it('answers INTERNAL naming the key when Redis holds text that is not JSON', async () => {
    const prefix = uniquePrefix();
    h = await startHarness('redis', { approvalPolicy: 'auto', redisPrefix: prefix });
    const agent = await h.client('agent');
    const plan = await agent.createPlan({ title: 'P', steps: ['a'] });
    const redis = new Redis(inject('redisUrl'));
    try {
      await redis.hset(`${prefix}:{ws}:doc:plan:${plan.plan_id}`, 'd', '{"plan_id": tru');
    } finally {
      redis.disconnect();
    }
    await expect(agent.getPlanStatus({ plan_id: plan.plan_id })).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining(`plan:${plan.plan_id}`) as string,
    });
  });

  it("answers INTERNAL naming the hash when a waiting step's received output is not JSON", async () => {
    const prefix = uniquePrefix();
    h = await startHarness('redis', { approvalPolicy: 'auto', redisPrefix: prefix });
    const kid = await h.client('kid');
    const parent = await h.client('parent');
    const work = await kid.createPlan({ title: 'K', steps: ['one', 'two'] });
    await kid.startPlan({ plan_id: work.plan_id });
    const waiting = await parent.createPlan({ title: 'P', steps: ['prepare'] });
    await parent.startPlan({ plan_id: waiting.plan_id });
    const join = await parent.addDependentStep({
      plan_id: waiting.plan_id,
      description: 'join',
      depends_on: [
        { agent_id: 'kid', step_id: 'step_1', plan_id: work.plan_id },
        { agent_id: 'kid', step_id: 'step_2', plan_id: work.plan_id },
      ],
    });
    await kid.completeStepWithOutput({ plan_id: work.plan_id, step_id: 'step_1', output: { n: 1 } });
    const redis = new Redis(inject('redisUrl'));
    let key = '';
    try {
      [key = ''] = await redis.keys(`${prefix}:*recv:*`);
      await redis.hset(key, '"kid:step_1"', '{not json');
    } finally {
      redis.disconnect();
    }
    expect(key).toContain(`${waiting.plan_id}:${join.step_id}`);
    await expect(parent.getPlanStatus({ plan_id: waiting.plan_id })).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining(`recv:${waiting.plan_id}:${join.step_id} is corrupt`) as string,
    });
  });
});
