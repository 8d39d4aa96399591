import type { PlanHubClient } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { startedPlan } from '../helpers/event-log.ts';
import { unblocksOf } from '../helpers/event-log.ts';
import { startHarness, type Harness, type HarnessStoreKind } from '../helpers/servers.ts';
import { rounds } from '../helpers/stress.ts';
import { storedWaiters } from '../helpers/stored-waiters.ts';

const KINDS: readonly HarnessStoreKind[] = ['memory', 'redis', 'file'];
const ROUNDS = rounds(3);

/**
 * A step that ends while it still waits on another plan's step (its owner skipped it, cancelled its plan, or
 * retention removed its plan) leaves that step's waiter list and the target plan's waitersPerPlan count at once,
 * rather than when the target ends: waits given up must not count against a plan that is still running.
 */
describe.each(KINDS)('waits given up before their target ends (%s store)', (kind) => {
  let h: Harness;
  afterEach(async () => h.close());

  /** The target's waiter list (step ids of the waiting steps) and its plan's count of waiters. */
  const waitersOf = async (planId: string) => {
    const { store } = h.server.services;
    const list = (await storedWaiters(store, 'ws', `${planId}:step_1`)).waiters;
    const { sets } = await store.loadCollections('ws', { sets: [`waiters-on:${planId}`] });
    return { steps: list.map((w) => w.step_id), count: sets[0]?.length };
  };

  const waitOnTarget = (waiter: PlanHubClient, planId: string, plan_id?: string) =>
    waiter.addDependentStep({
      description: 'wait for the target',
      depends_on: [{ agent_id: 'owner', step_id: 'step_1', plan_id: planId }],
      ...(plan_id ? { plan_id } : {}),
    });

  it('frees its place in the target plan when the waiting step is skipped', async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto', limits: { waitersPerPlan: 2 } });
    const owner = await h.client('owner');
    const waiter = await h.client('waiter');
    const target = await startedPlan(owner, 'target', ['long work']);
    await startedPlan(waiter, 'waiting plan', ['prepare']);
    // Three waits in turn, each given up: the third is within the bound of 2 only if the others left the count.
    for (let i = 0; i < 3; i++) {
      const added = await waitOnTarget(waiter, target.plan_id);
      expect(added.status).toBe('blocked');
      expect(await waitersOf(target.plan_id)).toEqual({ steps: [added.step_id], count: 1 });
      await waiter.setStepStatus({ step_id: added.step_id, status: 'skipped', result: 'not needed after all' });
      expect(await waitersOf(target.plan_id)).toEqual({ steps: [], count: 0 });
    }
    // The target's end still delivers to the waits that remain.
    const kept = await waitOnTarget(waiter, target.plan_id);
    await owner.completeStepWithOutput({ step_id: 'step_1', output: { done: true } });
    const step = (await waiter.getPlanStatus({})).steps.find((s) => s.step_id === kept.step_id);
    expect(step?.status).toBe('pending');
    expect(step?.received_outputs).toEqual({ 'owner:step_1': { done: true } });
  });

  it('frees them when the waiting plan is cancelled', async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto' });
    const owner = await h.client('owner');
    const waiter = await h.client('waiter');
    const target = await startedPlan(owner, 'target', ['long work']);
    await startedPlan(waiter, 'waiting plan', ['prepare']);
    const first = await waitOnTarget(waiter, target.plan_id);
    const second = await waitOnTarget(waiter, target.plan_id);
    expect(await waitersOf(target.plan_id)).toEqual({ steps: [first.step_id, second.step_id], count: 2 });
    await waiter.completePlan({ status: 'cancelled' });
    expect(await waitersOf(target.plan_id)).toEqual({ steps: [], count: 0 });
  });

  it('frees them when a plan completes with the waiting step open, and its removal later finds none', async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto', finishedPlansKept: 1 });
    const owner = await h.client('owner');
    const waiter = await h.client('waiter');
    const target = await startedPlan(owner, 'target', ['long work']);
    const waiting = await startedPlan(waiter, 'waiting plan', ['prepare']);
    await waitOnTarget(waiter, target.plan_id);
    expect(await waitersOf(target.plan_id)).toMatchObject({ count: 1 });
    // Completed leaves the blocked step as it is, but a finished plan's steps can no longer change: its wait is
    // given up with the plan's end (until round 23 only when retention removed the plan).
    await waiter.completePlan({ status: 'completed' });
    expect(await waitersOf(target.plan_id)).toEqual({ steps: [], count: 0 });
    // The next finished plan pushes this one past the one kept.
    await startedPlan(waiter, 'next plan', ['other work']);
    await waiter.completePlan({ status: 'completed' });
    await expect(waiter.getPlanStatus({ plan_id: waiting.plan_id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await waitersOf(target.plan_id)).toEqual({ steps: [], count: 0 });
    // The target ends with nobody left to tell.
    await owner.completeStepWithOutput({ step_id: 'step_1', output: { done: true } });
    expect((await owner.getPlanStatus({})).steps[0]?.status).toBe('completed');
  });

  it(`counts every wait once when the waiting steps give up as the target ends (${ROUNDS} rounds)`, async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto' });
    for (let round = 0; round < ROUNDS; round++) {
      const workspace = `race-${round}`;
      const owner = await h.client('owner', { workspace });
      const target = await startedPlan(owner, 'target', ['long work']);
      const waiters = await Promise.all(
        Array.from({ length: 4 }, async (_, i) => {
          const client = await h.client(`waiter${i}`, { workspace });
          const plan = await startedPlan(client, 'waiting plan', ['prepare']);
          return { client, plan, step: await waitOnTarget(client, target.plan_id) };
        }),
      );
      await Promise.all([
        owner.completeStepWithOutput({ step_id: 'step_1', output: { round } }),
        ...waiters.map(({ client, step }) =>
          client.setStepStatus({ step_id: step.step_id, status: 'skipped', result: 'gave up' }),
        ),
      ]);
      const { store } = h.server.services;
      const stored = await storedWaiters(store, workspace, `${target.plan_id}:step_1`);
      const { sets } = await store.loadCollections(workspace, { sets: [`waiters-on:${target.plan_id}`] });
      expect({ ...stored, count: sets[0]?.length }).toEqual({ waiters: [], version: 0, count: 0 });
      for (const { client, plan, step } of waiters) {
        const after = (await client.getPlanStatus({ plan_id: plan.plan_id })).steps.find(
          (s) => s.step_id === step.step_id,
        );
        expect(after?.status).toBe('skipped');
        // Told of the target's end only if that came first, and then once.
        expect((await unblocksOf(client, plan.plan_id, step.step_id)).length).toBeLessThanOrEqual(1);
      }
    }
  });
});
