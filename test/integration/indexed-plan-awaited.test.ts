import type { PlanHubClient } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { startedPlan, unblocksOf } from '../helpers/event-log.ts';
import { refusal } from '../helpers/refusals.ts';
import { startHarness, type Harness, type HarnessStoreKind } from '../helpers/servers.ts';

const KINDS: readonly HarnessStoreKind[] = ['memory', 'redis', 'file'];

/**
 * A seed-004 plan completes when update_plan ends its last open step. That end is an end like completePlan's: a wait
 * on a step the plan never got is told `skipped` in the same commit, and nothing of it stays stored, also after
 * retention removed the plan.
 */
describe.each(KINDS)('a wait on a step an indexed plan never got (%s store)', (kind) => {
  let h: Harness;
  afterEach(async () => h.close());

  /** The waiter's new step, blocked on the owner plan's step_1 (which exists) and step_9 (which does not). */
  const waitOn = async (waiter: PlanHubClient, planId: string) => {
    const own = await startedPlan(waiter, 'waiting plan', ['prepare']);
    const added = await waiter.addDependentStep({
      description: 'merge',
      depends_on: [
        { agent_id: 'owner', step_id: 'step_1', plan_id: planId },
        { agent_id: 'owner', step_id: 'step_9', plan_id: planId },
      ],
    });
    expect(added.status).toBe('blocked');
    return { planId: own.plan_id, stepId: added.step_id };
  };

  /** What the store keeps of the wait on the missing step. */
  const leftovers = async (planId: string) => {
    const { store } = h.server.services;
    const docs = await store.load('ws', [`awaited:${planId}`, `waiters:${planId}:step_9`]);
    const { hashes } = await store.loadCollections('ws', { hashes: [`waiters:${planId}:step_9`] });
    return { docs: docs.map((d) => d.value ?? null), waiters: hashes[0] };
  };

  const expectReleased = async (waiter: PlanHubClient, at: { planId: string; stepId: string }) => {
    const step = (await waiter.getPlanStatus({ plan_id: at.planId })).steps.find((s) => s.step_id === at.stepId);
    expect(step?.status).toBe('pending');
    const events = await unblocksOf(waiter, at.planId, at.stepId);
    expect(events).toHaveLength(1);
    expect(events[0]?.payload.outputs).toMatchObject({
      'owner:step_9': { status: 'skipped', result: 'plan completed without a step step_9', error: null },
    });
  };

  it('is told skipped in the commit where update_plan completes the plan', async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto' });
    const owner = await h.client('owner');
    const waiter = await h.client('waiter');
    const target = await owner.create_plan({ title: 'target', steps: [{ description: 'work' }] });
    const at = await waitOn(waiter, target.plan_id);
    expect((await leftovers(target.plan_id)).docs[0]).toEqual({ step_ids: ['step_9'] });

    expect(await owner.update_plan({ plan_id: target.plan_id, step_index: 0, status: 'completed' })).toMatchObject({
      plan_status: 'completed',
    });
    await expectReleased(waiter, at);
    expect(await leftovers(target.plan_id)).toEqual({ docs: [null, null], waiters: {} });
  });

  it('leaves no wait and no note behind when retention removes the plan', async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto', finishedPlansKept: 1 });
    const owner = await h.client('owner');
    const waiter = await h.client('waiter');
    const target = await owner.create_plan({ title: 'target', steps: [{ description: 'work' }] });
    const at = await waitOn(waiter, target.plan_id);
    await owner.update_plan({ plan_id: target.plan_id, step_index: 0, status: 'completed' });
    for (const title of ['second', 'third'])
      await owner.create_plan({ title, steps: [{ description: 'done', status: 'completed' }] });

    expect((await refusal(owner.get_plan({ plan_id: target.plan_id }))).code).toBe('NOT_FOUND');
    await expectReleased(waiter, at);
    expect(await leftovers(target.plan_id)).toEqual({ docs: [null, null], waiters: {} });
  });

  it('deletes a note an earlier version left on a finished plan when retention removes the plan', async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto', finishedPlansKept: 1 });
    const owner = await h.client('owner');
    const target = await owner.create_plan({ title: 'target', steps: [{ description: 'work', status: 'completed' }] });
    const key = `awaited:${target.plan_id}`;
    const { store } = h.server.services;
    const planted = await store.commit('ws', {
      reads: [],
      writes: [{ key, value: { step_ids: ['step_9'] } }],
      events: [],
    });
    expect(planted.ok).toBe(true);
    for (const title of ['second', 'third'])
      await owner.create_plan({ title, steps: [{ description: 'done', status: 'completed' }] });

    expect((await refusal(owner.get_plan({ plan_id: target.plan_id }))).code).toBe('NOT_FOUND');
    expect((await store.load('ws', [key]))[0]?.value ?? null).toBeNull();
  });
});
