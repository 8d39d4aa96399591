import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { refusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { AUTH_PLAN, enterAndPresent, watch } from './plan-mode-support.ts';

describe.each(STORE_KINDS)('plan_reject leaves plan mode from any mode (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('from plan mode (nothing presented yet): back to normal, as upstream answers', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    await agent.plan_enter({ goal: 'Explore the auth code' });
    expect(await agent.plan_reject({})).toMatchObject({ status: 'rejected', mode: 'normal', plan_id: null });
    expect(await agent.plan_status({})).toMatchObject({ mode: 'normal', blocked_tools: [] });
    // Plan mode can be entered again at once: nothing of the old goal is left.
    expect(await agent.plan_enter({ goal: 'Something else' })).toMatchObject({ mode: 'plan' });
  });

  it('from normal mode: no error, nothing changes', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    expect(await agent.plan_reject({ reason: 'never mind' })).toMatchObject({ status: 'rejected', mode: 'normal' });
  });

  it('while executing: the approved plan is cancelled and the agent is in normal mode', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const w = await watch(h);
    const agent = await h.client('main');
    const { plan_id } = await enterAndPresent(agent, AUTH_PLAN);
    expect(await agent.plan_status({})).toMatchObject({ mode: 'executing' });
    expect(await agent.plan_reject({ reason: 'user changed their mind' })).toMatchObject({
      status: 'rejected',
      mode: 'normal',
      plan_id,
      plan_status: 'cancelled',
    });
    expect(await agent.plan_status({})).toMatchObject({ mode: 'normal' });
    expect(await agent.getPlanStatus({ plan_id })).toMatchObject({ status: 'cancelled' });
    await eventually(() => expect(w.of('mode_changed').map((e) => e.payload.to)).toContain('normal'));
  });

  it('a plan awaiting approval is still rejected as before (the decision path wins)', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const { plan_id } = await enterAndPresent(agent, AUTH_PLAN);
    expect(await agent.plan_reject({})).toMatchObject({ status: 'rejected', plan_id, mode: 'normal' });
  });

  it('"No active plan" leads the refusals of plan_complete and plan_step_complete, as upstream', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    expect((await refusal(agent.plan_complete({ summary: 'done' }))).message).toMatch(/^No active plan/);
    await agent.plan_enter({ goal: 'Explore' });
    expect((await refusal(agent.plan_step_complete({ step_id: 1, verification_result: 'ok' }))).message).toMatch(
      /^No active plan/,
    );
    await agent.plan_exit({ plan: AUTH_PLAN });
    expect((await refusal(agent.plan_complete({ summary: 'done' }))).message).toMatch(/^No active plan/);
  });
});

describe.each(STORE_KINDS)('a seed-004 working_dir is shared by the workspace (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it("a worker reads and updates its planner's plan there; elsewhere it stays the owner's", async () => {
    h = await startHarness(store);
    const planner = await h.client('planner');
    const worker = await h.client('worker');
    const shared = await planner.create_plan({
      title: 'Release 2.0',
      steps: [{ description: 'tag' }, { description: 'publish' }],
      working_dir: '/repo',
    });
    const privatePlan = await planner.create_plan({ title: 'Notes', steps: [{ description: 'x' }] });

    expect(await worker.get_plan({ working_dir: '/repo' })).toMatchObject({
      plan_id: shared.plan_id,
      title: 'Release 2.0',
    });
    expect(
      await worker.update_plan({ plan_id: shared.plan_id, step_index: 0, notes: 'tagged v2.0', working_dir: '/repo' }),
    ).toMatchObject({ ok: true, new_status: 'completed' });
    expect((await planner.get_plan({ plan_id: shared.plan_id })).steps[0]).toMatchObject({
      status: 'completed',
      notes: 'tagged v2.0',
    });

    // Naming the folder is what grants access; another folder or a private plan is refused with the way out.
    const wrongDir = await refusal(worker.update_plan({ plan_id: shared.plan_id, step_index: 1, working_dir: '/tmp' }));
    expect(wrongDir).toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(wrongDir.message).toContain('"/repo"');
    expect(await refusal(worker.update_plan({ plan_id: privatePlan.plan_id, step_index: 0 }))).toMatchObject({
      code: 'PERMISSION_DENIED',
    });

    // The folder's most recent plan is whoever changed it last.
    const workerPlan = await worker.create_plan({
      title: 'Worker log',
      steps: [{ description: 'y' }],
      working_dir: '/repo',
    });
    expect(await planner.get_plan({ working_dir: '/repo' })).toMatchObject({ plan_id: workerPlan.plan_id });
    await planner.update_plan({ plan_id: shared.plan_id, step_index: 1, working_dir: '/repo' });
    expect(await worker.get_plan({ working_dir: '/repo' })).toMatchObject({ plan_id: shared.plan_id });
  });
});
