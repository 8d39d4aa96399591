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
});
