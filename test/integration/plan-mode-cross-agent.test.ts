import { afterEach, describe, expect, it } from 'vitest';
import { expectRefusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { rounds } from '../helpers/stress.ts';
import { enterAndPresent, watch } from './plan-mode-support.ts';

describe.each(STORE_KINDS)('dialect 002: plans among other agents (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it("sees a cross-agent cycle that runs through a plan's own step order", async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const main = await h.client('main');
    await enterAndPresent(main);
    const parent = await h.client('parent');
    await parent.createPlan({ title: 'Review', steps: ['Review the routes'] });
    await parent.startPlan({});
    // parent:step_1 waits on main's step 2, which (within main's plan) waits on main's step 1 ...
    await parent.addDependentStep({ step_id: 'step_1', depends_on: [{ agent_id: 'main', step_id: 'step_2' }] });
    // ... so main's step 1 waiting on parent:step_1 would close a cycle.
    await expectRefusal(
      main.addDependentStep({ step_id: 'step_1', depends_on: [{ agent_id: 'parent', step_id: 'step_1' }] }),
      'FAILED_PRECONDITION',
      /cycle/,
    );
  });

  it("frees other agents waiting on a rejected plan's steps (as skipped) instead of leaving them hanging", async () => {
    h = await startHarness(store);
    const planner = await h.client('planner');
    const { plan_id } = await enterAndPresent(planner);
    const waiter = await h.client('waiter');
    await waiter.createPlan({ title: 'W', steps: ['Use the auth module'] });
    const starting = waiter.startPlan({});
    const user = await h.client('alice', { role: 'user' });
    await expect.poll(async () => (await user.getPlanStatus({ agent_id: 'waiter' })).status).toBe('awaiting_approval');
    await user.plan_approve({ agent_id: 'waiter' });
    await starting;
    await waiter.addDependentStep({ step_id: 'step_1', depends_on: [{ agent_id: 'planner', step_id: 'step_3' }] });
    expect((await waiter.getPlanStatus({})).steps[0]?.status).toBe('blocked');

    await user.plan_reject({ plan_id, reason: 'not now' });
    const freed = (await waiter.getPlanStatus({})).steps[0];
    expect(freed?.status).toBe('pending');
    expect(freed?.received_outputs?.['planner:step_3']).toMatchObject({ status: 'skipped', result: 'plan rejected' });
    // The rejected plan's own steps are not woken up.
    expect((await user.getPlanStatus({ plan_id })).steps.map((s) => s.status)).toEqual([
      'pending',
      'blocked',
      'blocked',
    ]);
  });

  it('applies racing decisions and completions once: one approval, one completion of a step', async () => {
    h = await startHarness(store);
    const w = await watch(h);
    for (let round = 0; round < rounds(2); round++) {
      const name = `racer-${round}`;
      const [a, b] = [await h.client(name), await h.client(name)];
      const { plan_id } = await enterAndPresent(a);
      const [u1, u2] = [
        await h.client(`u1-${round}`, { role: 'user' }),
        await h.client(`u2-${round}`, { role: 'user' }),
      ];
      const decisions = await Promise.allSettled([u1.plan_approve({ plan_id }), u2.plan_approve({ plan_id })]);
      expect(decisions.filter((d) => d.status === 'fulfilled')).toHaveLength(1);
      const done = await Promise.allSettled([
        a.plan_step_complete({ step_id: 1, verification_result: 'a' }),
        b.plan_step_complete({ step_id: 1, verification_result: 'b' }),
      ]);
      expect(done.filter((d) => d.status === 'fulfilled')).toHaveLength(1);
      await expect
        .poll(() =>
          w
            .of('step_unblocked')
            .filter((e) => e.source_plan_id === plan_id)
            .map((e) => e.source_step_id),
        )
        .toEqual(['step_2']);
      expect(w.of('plan_approved').filter((e) => e.source_plan_id === plan_id)).toHaveLength(1);
      expect(w.of('step_completed').filter((e) => e.source_plan_id === plan_id)).toHaveLength(1);
    }
  });
});
