import type { PlanHubClient } from '@planhub/client-sdk';
import { compareEventIds } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { startedPlan, unblocksOf } from '../helpers/event-log.ts';
import { poll } from '../helpers/eventually.ts';
import { startHarness, type Harness, type HarnessStoreKind } from '../helpers/servers.ts';
import { rounds } from '../helpers/stress.ts';

const KINDS: readonly HarnessStoreKind[] = ['memory', 'redis', 'file'];
const WAITERS = 6;
const ROUNDS = rounds(3);

/**
 * completePlan(status "completed") leaves the plan's open steps as they were, and a finished plan's steps can no longer
 * change. A step of another plan waiting on one of them used to stay blocked until retention removed the plan (20
 * more finished plans of that agent later), while the same wait registered after the end resolved at once as
 * skipped. Now the end releases them in its own commit.
 */
describe.each(KINDS)('waits on a step left open by a completed plan (%s store)', (kind) => {
  let h: Harness;
  afterEach(async () => h.close());

  const stepOf = async (client: PlanHubClient, planId: string, stepId: string) =>
    (await client.getPlanStatus({ plan_id: planId })).steps.find((s) => s.step_id === stepId);

  const expectToldSkipped = async (client: PlanHubClient, planId: string, stepId: string, from: string) => {
    await poll(async () => (await stepOf(client, planId, stepId))?.status).toBe('pending');
    const events = await unblocksOf(client, planId, stepId);
    expect(events).toHaveLength(1);
    expect(events[0]?.payload.outputs).toMatchObject({
      [from]: { status: 'skipped', result: 'plan completed', error: null },
    });
  };

  it('are told skipped by the end, and the open step gives its own waits up', async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto' });
    const owner = await h.client('owner');
    const waiter = await h.client('waiter');
    const third = await h.client('third');
    const upstream = await startedPlan(third, 'upstream', ['feed']);
    const target = await startedPlan(owner, 'target', ['a', 'b']);
    // The owner's step_3 waits on the third agent, and stays open when the plan completes.
    const owned = await owner.addDependentStep({
      description: 'wait on third',
      depends_on: [{ agent_id: 'third', step_id: 'step_1' }],
    });
    const own = await startedPlan(waiter, 'waiting plan', ['prepare']);
    const byPlan = await waiter.addDependentStep({
      description: 'use b',
      depends_on: [{ agent_id: 'owner', step_id: 'step_2', plan_id: target.plan_id }],
    });
    const onBlocked = await waiter.addDependentStep({
      description: 'use the waiting step',
      depends_on: [{ agent_id: 'owner', step_id: owned.step_id, plan_id: target.plan_id }],
    });
    expect([byPlan.status, onBlocked.status]).toEqual(['blocked', 'blocked']);
    await owner.setStepStatus({ step_id: 'step_1', status: 'completed' });

    const ended = await owner.completePlan({ status: 'completed' });
    expect(ended.status).toBe('completed');
    await expectToldSkipped(waiter, own.plan_id, byPlan.step_id, 'owner:step_2');
    await expectToldSkipped(waiter, own.plan_id, onBlocked.step_id, `owner:${owned.step_id}`);
    // The completed plan's steps are as they were.
    const steps = (await owner.getPlanStatus({ plan_id: target.plan_id })).steps.map((s) => s.status);
    expect(steps).toEqual(['completed', 'pending', 'blocked']);

    // The third agent's step ends later: nothing is delivered to the finished plan's step any more.
    await third.completeStepWithOutput({ step_id: 'step_1', output: { fed: true } });
    expect(await unblocksOf(owner, target.plan_id, owned.step_id)).toEqual([]);
    expect((await stepOf(owner, target.plan_id, owned.step_id))?.status).toBe('blocked');
    expect((await third.getPlanStatus({ plan_id: upstream.plan_id })).steps[0]?.status).toBe('completed');
    const { store } = h.server.services;
    const { sets, hashes } = await store.loadCollections('ws', {
      sets: [`waiters-on:${target.plan_id}`, `waiters-on:${upstream.plan_id}`],
      hashes: [`waiters:${target.plan_id}:step_2`],
    });
    expect({ waitersOn: sets.map((s) => s?.length ?? 0), waiters: hashes[0] }).toEqual({
      waitersOn: [0, 0],
      waiters: {},
    });
  });

  it("raced with its target's end, an open step is unblocked before the plan ends or never", async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto' });
    for (let round = 0; round < ROUNDS * 4; round++) {
      const workspace = `target-race-${round}`;
      const owner = await h.client('owner', { workspace });
      const third = await h.client('third', { workspace });
      await startedPlan(third, 'upstream', ['feed']);
      const target = await startedPlan(owner, 'target', ['a']);
      const owned = await owner.addDependentStep({
        description: 'wait on third',
        depends_on: [{ agent_id: 'third', step_id: 'step_1' }],
      });
      await owner.setStepStatus({ step_id: 'step_1', status: 'completed' });
      // The target ends somewhere around the plan's end: a few ms after it, the end has read the waiting step's
      // state and the target's end has read its waiters, and both commit.
      const delay = Math.random() * 20;
      await Promise.all([
        owner.completePlan({ status: 'completed' }),
        new Promise((resolve) => setTimeout(resolve, delay)).then(() =>
          third.completeStepWithOutput({ step_id: 'step_1', output: { round } }),
        ),
      ]);
      const log = await owner.getTaskEvents({ plan_id: target.plan_id, after_event: '0-0', limit: 100 });
      const ended = log.events.find((e) => e.event_type === 'plan_completed');
      const unblocks = log.events.filter(
        (e) => e.event_type === 'step_unblocked' && e.source_step_id === owned.step_id,
      );
      expect(ended).toBeDefined();
      expect(unblocks.length).toBeLessThanOrEqual(1);
      // An unblock after the end would rewrite a finished plan's step.
      for (const e of unblocks) expect(compareEventIds(e.event_id, ended!.event_id)).toBeLessThan(0);
      const status = (await stepOf(owner, target.plan_id, owned.step_id))?.status;
      // Unblocked before the end: pending. Otherwise blocked, or pending when the target's end committed just after
      // the plan's (its output recorded, never announced: the plan had ended).
      if (unblocks.length === 1) expect(status).toBe('pending');
      else expect(['blocked', 'pending']).toContain(status);
    }
  });

  it('raced with the end, each wait resolves exactly once, registered before or after it', async () => {
    h = await startHarness(kind, { approvalPolicy: 'auto' });
    for (let round = 0; round < ROUNDS; round++) {
      const owner = await h.client(`owner${round}`);
      const target = await startedPlan(owner, 'target', ['a', 'b']);
      await owner.setStepStatus({ step_id: 'step_1', status: 'completed' });
      const waiters = await Promise.all(
        Array.from({ length: WAITERS }, async (_, i) => {
          const client = await h.client(`waiter${round}-${i}`);
          return { client, plan: await startedPlan(client, `waiter ${i}`, ['prepare']) };
        }),
      );
      const register = ({ client }: { client: PlanHubClient }) =>
        client.addDependentStep({
          description: 'use b',
          depends_on: [{ agent_id: `owner${round}`, step_id: 'step_2', plan_id: target.plan_id }],
        });
      // The first registers before the end, for certain, and times a registration; the end then starts somewhere
      // within about one registration's time while the others register, so some commit before it, some after.
      const started = performance.now();
      const first = await register(waiters[0]!);
      const took = performance.now() - started;
      const end = new Promise((resolve) => setTimeout(resolve, Math.random() * took * 1.5)).then(() =>
        owner.completePlan({ status: 'completed' }),
      );
      const [, ...rest] = await Promise.all([end, ...waiters.slice(1).map((w) => register(w))]);
      const added = [first, ...rest];
      for (const [i, step] of added.entries()) {
        const { client, plan } = waiters[i]!;
        await expectToldSkipped(client, plan.plan_id, step.step_id, `owner${round}:step_2`);
      }
    }
  });
});
