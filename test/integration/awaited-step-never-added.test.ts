import type { PlanHubClient } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { awaitedStepRaceRound } from '../helpers/awaited-race.ts';
import { startedPlan, unblocksOf } from '../helpers/event-log.ts';
import { poll } from '../helpers/eventually.ts';
import { startHarness, type Harness, type HarnessStoreKind } from '../helpers/servers.ts';
import { rounds } from '../helpers/stress.ts';
import { AUTH_PLAN, enterAndPresent } from './plan-mode-support.ts';

const KINDS: readonly HarnessStoreKind[] = ['memory', 'redis', 'file'];
const ROUNDS = rounds(4);

/**
 * A wait named by plan_id on a step that plan does not have yet is kept until the owner adds the step. When the plan
 * ends without it, the plan can get no more steps: the waiting step is told `skipped` (as for an open step of a
 * finished plan) in the commit that ends the plan, instead of waiting forever.
 */
describe.each(KINDS)('a wait on a step its plan never got (%s store)', (kind) => {
  let h: Harness;
  afterEach(async () => h.close());

  /** The waiting agent's step on `owner`'s plan `planId`: on step_1 (which exists) and on step_9 (which does not). */
  const waitOn = async (waiter: PlanHubClient, owner: string, planId: string) => {
    const own = await startedPlan(waiter, 'waiting plan', ['prepare']);
    const added = await waiter.addDependentStep({
      description: 'merge',
      depends_on: [
        { agent_id: owner, step_id: 'step_1', plan_id: planId },
        { agent_id: owner, step_id: 'step_9', plan_id: planId },
      ],
    });
    expect(added.status).toBe('blocked');
    expect(added.message).toContain('do not exist yet');
    return { planId: own.plan_id, stepId: added.step_id };
  };

  /** What the store keeps of the wait on the missing step; all of it must be gone once the plan ended. */
  const leftovers = async (planId: string) => {
    const { store } = h.server.services;
    const docs = await store.load('ws', [`awaited:${planId}`, `waiters:${planId}:step_9`]);
    const { sets, hashes } = await store.loadCollections('ws', {
      sets: [`waiters-on:${planId}`],
      hashes: [`waiters:${planId}:step_9`],
    });
    return { docs: docs.map((d) => d.value ?? null), waiters: hashes[0], waitersOn: sets[0]?.length };
  };

  const expectReleased = async (waiter: PlanHubClient, at: { planId: string; stepId: string }, why: string) => {
    const stepOf = async () =>
      (await waiter.getPlanStatus({ plan_id: at.planId })).steps.find((s) => s.step_id === at.stepId);
    await poll(async () => (await stepOf())?.status).toBe('pending');
    const events = await unblocksOf(waiter, at.planId, at.stepId);
    expect(events).toHaveLength(1);
    expect(events[0]?.payload.outputs).toMatchObject({
      'owner:step_9': { status: 'skipped', result: why, error: null },
    });
    expect((await stepOf())?.received_outputs).toHaveProperty(['owner:step_9']);
  };

  it.each(['completed', 'cancelled', 'failed'] as const)(
    'is told skipped when the plan ends %s, and nothing of it stays stored',
    async (status) => {
      h = await startHarness(kind, { approvalPolicy: 'auto' });
      const owner = await h.client('owner');
      const waiter = await h.client('waiter');
      const target = await startedPlan(owner, 'target', ['work']);
      const at = await waitOn(waiter, 'owner', target.plan_id);
      expect((await leftovers(target.plan_id)).docs[0]).toEqual({ step_ids: ['step_9'] });
      await owner.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'done' });
      // step_1 ended; step_9 is still awaited.
      expect((await waiter.getPlanStatus({ plan_id: at.planId })).steps.at(-1)?.status).toBe('blocked');

      await owner.completePlan({ status });
      await expectReleased(waiter, at, `plan ${status} without a step step_9`);
      expect(await leftovers(target.plan_id)).toEqual({ docs: [null, null], waiters: {}, waitersOn: 0 });
    },
  );

  it('is told skipped when a user rejects the plan before it started', async () => {
    h = await startHarness(kind, { approvalPolicy: 'owner-or-user' });
    const owner = await h.client('owner');
    const waiter = await h.client('waiter');
    const user = await h.client('alice', { role: 'user' });
    const target = await owner.createPlan({ title: 'target', steps: ['work'] });
    await owner.startPlan({ wait: false });
    // The waiter's own plan needs approval too.
    const own = await waiter.createPlan({ title: 'waiting plan', steps: ['prepare'] });
    await waiter.startPlan({ wait: false });
    await user.plan_approve({ plan_id: own.plan_id });
    const added = await waiter.addDependentStep({
      description: 'merge',
      depends_on: [{ agent_id: 'owner', step_id: 'step_9', plan_id: target.plan_id }],
    });
    expect(added.status).toBe('blocked');

    await user.plan_reject({ plan_id: target.plan_id, reason: 'not now' });
    await expectReleased(waiter, { planId: own.plan_id, stepId: added.step_id }, 'plan rejected without a step step_9');
    expect(await leftovers(target.plan_id)).toEqual({ docs: [null, null], waiters: {}, waitersOn: 0 });
  });

  it('is told skipped when a plan-mode plan completes without the step', async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto' });
    const owner = await h.client('owner');
    const waiter = await h.client('waiter');
    await enterAndPresent(owner);
    const { plan_id } = await owner.getPlanStatus({});
    const at = await waitOn(waiter, 'owner', plan_id);
    for (const step of AUTH_PLAN.steps) await owner.plan_step_complete({ step_id: step.id, verification_result: 'ok' });
    await owner.plan_complete({ summary: 'done' });
    await expectReleased(waiter, at, 'plan completed without a step step_9');
    expect(await leftovers(plan_id)).toEqual({ docs: [null, null], waiters: {}, waitersOn: 0 });
  });

  it('resolves by the step itself when the owner adds it before the end, once', async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto' });
    const owner = await h.client('owner');
    const waiter = await h.client('waiter');
    const target = await startedPlan(owner, 'target', ['work']);
    const own = await startedPlan(waiter, 'waiting plan', ['prepare']);
    const added = await waiter.addDependentStep({
      description: 'merge',
      depends_on: [{ agent_id: 'owner', step_id: 'step_2', plan_id: target.plan_id }],
    });
    await owner.addStep({ description: 'the awaited one' });
    await owner.completeStepWithOutput({ step_id: 'step_2', output: { answer: 42 } });
    await owner.completePlan({ status: 'completed' });
    const step = (await waiter.getPlanStatus({ plan_id: own.plan_id })).steps.find((s) => s.step_id === added.step_id);
    expect(step?.status).toBe('pending');
    const events = await unblocksOf(waiter, own.plan_id, added.step_id);
    expect(events).toHaveLength(1);
    expect(events[0]?.payload.outputs).toEqual({ 'owner:step_2': { answer: 42 } });
    const { store } = h.server.services;
    expect((await store.load('ws', [`awaited:${target.plan_id}`]))[0]?.value).toBeUndefined();
  });

  it('refuses to end the plan, changing nothing, when the note of awaited steps is corrupt', async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto' });
    const owner = await h.client('owner');
    const target = await startedPlan(owner, 'target', ['work']);
    const key = `awaited:${target.plan_id}`;
    const { store } = h.server.services;
    expect(
      (await store.commit('ws', { reads: [], writes: [{ key, value: { step_ids: 'step_9' } }], events: [] })).ok,
    ).toBe(true);
    await expect(owner.completePlan({ status: 'completed' })).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining(`The stored document ${key} is corrupt`) as string,
    });
    expect((await owner.getPlanStatus({ plan_id: target.plan_id })).status).toBe('in_progress');
  });

  it(`leaves no registration waiting when it races the plan's end (${ROUNDS} rounds)`, async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto' });
    for (let round = 0; round < ROUNDS; round++)
      await awaitedStepRaceRound((id) => h.client(id, { workspace: `race-${round}` }), {
        tag: `r${round}`,
        waiters: 6,
      });
  });
});
