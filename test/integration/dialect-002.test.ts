import type { EventEnvelope, PlanHubClient } from '@planhub/client-sdk';
import { renderPlanText } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { expectRefusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { rounds } from '../helpers/stress.ts';

/** Seed 002's plan object: summary, approach, steps with files, dependencies and verification, risks, files, tests. */
const AUTH_PLAN = {
  summary: 'Add JWT authentication to the API',
  approach: 'Middleware that validates tokens, applied to every protected route',
  alternatives_considered: ['Session cookies: rejected, the API is stateless'],
  steps: [
    {
      id: 1,
      description: 'Write the token validation middleware',
      files: ['src/auth.ts'],
      verification: 'npm test auth',
    },
    { id: 2, description: 'Apply it to protected routes', files: ['src/routes.ts'], depends_on: [1] },
    { id: 3, description: 'Document the auth header', files: ['README.md'], depends_on: [1, 2] },
  ],
  risks: [{ risk: 'Clock skew breaks expiry checks', mitigation: '30 s leeway' }],
  files_to_create: ['src/auth.ts'],
  files_to_modify: ['src/routes.ts', 'README.md'],
  tests_to_write: ['auth middleware rejects expired tokens'],
  estimated_complexity: 'medium' as const,
};

/** A dashboard sees every event; the helper collects them for assertions. */
const watch = async (h: Harness) => {
  const board = await h.client('board', { role: 'dashboard' });
  const events: EventEnvelope[] = [];
  board.on('event', (e) => events.push(e));
  await board.subscribeToTasks({
    agent_id: '*',
    event_types: [
      'mode_changed',
      'plan_created',
      'plan_approval_requested',
      'plan_approved',
      'plan_rejected',
      'plan_modified',
      'plan_completed',
      'step_completed',
      'step_skipped',
      'step_unblocked',
    ],
  });
  return { board, events, of: (type: string) => events.filter((e) => e.event_type === type) };
};

const enterAndPresent = async (agent: PlanHubClient, plan = AUTH_PLAN) => {
  await agent.plan_enter({ goal: 'Add authentication', scope: 'src/' });
  return agent.plan_exit({ plan });
};

describe.each(STORE_KINDS)('dialect 002: plan mode through the SDK (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it("runs the seed's workflow: enter, explore, present, approve, execute step by step, complete", async () => {
    h = await startHarness(store);
    const w = await watch(h);
    const agent = await h.client('main');
    expect(await agent.plan_status({})).toMatchObject({ mode: 'normal', blocked_tools: [] });

    const entered = await agent.plan_enter({ goal: 'Add authentication', scope: 'src/' });
    expect(entered).toMatchObject({
      status: 'entered',
      mode: 'plan',
      blocked_tools: ['write_file', 'cron_create', 'cron_delete'],
    });
    expect(await agent.plan_status({})).toMatchObject({
      mode: 'plan',
      goal: 'Add authentication',
      scope: 'src/',
      blocked_tools: ['write_file', 'cron_create', 'cron_delete'],
    });
    expect(await agent.isToolBlocked('write_file')).toBe(true);
    expect(await agent.isToolBlocked('cron_delete')).toBe(true);
    expect(await agent.isToolBlocked('read_file')).toBe(false);

    const presented = await agent.plan_exit({ plan: AUTH_PLAN });
    expect(presented).toMatchObject({ status: 'plan_presented', mode: 'awaiting_approval', awaiting_approval: true });
    expect(presented.plan_id).toMatch(/^[a-z0-9]{8}$/);
    expect(presented.markdown).toContain('# Plan');
    expect(presented.markdown).toContain('Write the token validation middleware');
    // "until the plan is approved": still blocked while the user decides.
    expect(await agent.isToolBlocked('write_file')).toBe(true);
    await expectRefusal(
      agent.plan_step_complete({ step_id: 1, verification_result: 'ok' }),
      'FAILED_PRECONDITION',
      /awaiting the user's approval/,
    );

    const user = await h.client('alice', { role: 'user' });
    expect(await user.plan_approve({ agent_id: 'main' })).toMatchObject({
      status: 'approved',
      plan_id: presented.plan_id,
      plan_status: 'in_progress',
      mode: 'executing',
    });
    expect(await agent.isToolBlocked('write_file')).toBe(false);
    expect(await agent.plan_status({})).toMatchObject({
      mode: 'executing',
      active_plan_id: presented.plan_id,
      active_plan_progress: { total_steps: 3, completed_steps: 0, current_step: 1 },
    });

    const first = await agent.plan_step_complete({ step_id: 1, verification_result: '12 tests passed' });
    expect(first).toMatchObject({
      status: 'step_completed',
      step_id: 1,
      verification_result: '12 tests passed',
      progress: { total_steps: 3, completed_steps: 1, next_step: 2 },
      unblocked: [2],
    });
    await agent.plan_step_complete({ step_id: 2, verification_result: 'routes return 401 without a token' });
    const last = await agent.plan_step_complete({ step_id: 3, verification_result: 'README updated' });
    expect(last.progress).toEqual({ total_steps: 3, completed_steps: 3, next_step: null });
    expect(last.message).toMatch(/plan_complete/);

    const done = await agent.plan_complete({ summary: 'JWT auth on every protected route' });
    expect(done).toMatchObject({
      status: 'plan_completed',
      plan_id: presented.plan_id,
      deviations: [],
      mode: 'normal',
      progress: { completed: 3, total: 3 },
    });
    expect(await agent.plan_status({})).toMatchObject({ mode: 'normal', blocked_tools: [] });

    await expect
      .poll(() => w.of('mode_changed').map((e) => `${String(e.payload.from)}→${String(e.payload.to)}`))
      .toEqual(['normal→plan', 'plan→awaiting_approval', 'awaiting_approval→executing', 'executing→normal']);
    const approvedBy = w.of('mode_changed')[2];
    expect(approvedBy).toMatchObject({ source_agent: 'alice', payload: { agent_id: 'main' } });
    expect(w.of('plan_created')[0]).toMatchObject({ source_plan_id: presented.plan_id, payload: { dialect: '002' } });
    expect(w.of('plan_approval_requested')).toHaveLength(1);
    expect(w.of('step_unblocked').map((e) => e.source_step_id)).toEqual(['step_2', 'step_3']);
    expect(w.of('plan_completed')).toHaveLength(1);
  });

  it('makes the plan a PlanHub plan every dialect reads: getPlanStatus, the plan text, the numbered steps', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    const presented = await enterAndPresent(agent);
    expect(presented).toMatchObject({ mode: 'executing', awaiting_approval: false });
    await agent.plan_step_complete({ step_id: 1, verification_result: 'ok' });

    const reader = await h.client('reader');
    const view = await reader.getPlanStatus({ agent_id: 'main' });
    expect(view).toMatchObject({
      plan_id: presented.plan_id,
      title: 'Add authentication',
      status: 'in_progress',
      dialect: '002',
      progress: { completed: 1, total: 3, pending: 1, blocked: 1 },
    });
    expect(view.steps.map((s) => [s.id, s.status])).toEqual([
      ['step_1', 'completed'],
      ['step_2', 'pending'],
      ['step_3', 'blocked'],
    ]);
    expect(view.steps[0]?.result).toBe('ok');
    expect(renderPlanText(view)).toContain('[x] step_1: Write the token validation middleware');
    expect(renderPlanText(view)).toContain('[~] step_3: Document the auth header');
    // Seed 004 addresses the same steps by index.
    expect(await agent.get_plan({ plan_id: presented.plan_id })).toMatchObject({
      ok: true,
      title: 'Add authentication',
      completed_count: 1,
      total_count: 3,
      steps: [
        { index: 0, description: 'Write the token validation middleware', status: 'completed' },
        { index: 1, status: 'pending' },
        { index: 2, status: 'blocked' },
      ],
    });

    // The within-plan order holds in seed 000's tools too: step 3 still waits on step 2.
    await expectRefusal(agent.setStepStatus({ step_id: 'step_3', status: 'completed' }), 'FAILED_PRECONDITION');
    await agent.setStepStatus({ step_id: 'step_2', status: 'completed', result: 'done via 000' });
    expect(await agent.plan_status({})).toMatchObject({
      active_plan_progress: { completed_steps: 2, current_step: 3 },
    });
  });

  it('enforces step dependencies and refuses duplicate and unknown steps', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await enterAndPresent(agent);
    await expectRefusal(
      agent.plan_step_complete({ step_id: 3, verification_result: 'x' }),
      'FAILED_PRECONDITION',
      /Step 3 depends on step 1 \(pending\), step 2 \(blocked\)/,
    );
    await expectRefusal(
      agent.plan_step_complete({ step_id: 9, verification_result: 'x' }),
      'NOT_FOUND',
      /Step 9 not found .*its steps are 1, 2, 3/,
    );
    await agent.plan_step_complete({ step_id: 1, verification_result: 'ok' });
    await expectRefusal(
      agent.plan_step_complete({ step_id: 1, verification_result: 'again' }),
      'FAILED_PRECONDITION',
      'Step 1 already completed.',
    );
    await expectRefusal(agent.plan_step_complete({ step_id: 1.5, verification_result: 'x' }), 'INVALID_ARGUMENT');
  });

  it('refuses calls out of order with what to do instead, and changes nothing', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    await expectRefusal(
      agent.plan_exit({ plan: AUTH_PLAN }),
      'FAILED_PRECONDITION',
      'Not in plan mode. Call plan_enter first.',
    );
    await expectRefusal(agent.plan_complete({ summary: 'x' }), 'FAILED_PRECONDITION', /No active plan/);
    await agent.plan_enter({ goal: 'G' });
    await expectRefusal(
      agent.plan_enter({ goal: 'other' }),
      'FAILED_PRECONDITION',
      /Already in plan mode \(goal: "G"\)/,
    );
    await expectRefusal(
      agent.plan_step_complete({ step_id: 1, verification_result: 'x' }),
      'FAILED_PRECONDITION',
      /still in plan mode/,
    );
    await agent.plan_exit({ plan: AUTH_PLAN });
    await expectRefusal(agent.plan_enter({ goal: 'other' }), 'FAILED_PRECONDITION', /awaiting the user's approval/);
    await agent.plan_approve({});
    await expectRefusal(agent.plan_enter({ goal: 'other' }), 'FAILED_PRECONDITION', /You are executing plan/);
    await expectRefusal(agent.plan_approve({}), 'NOT_FOUND');
  });

  it('refuses malformed plans (duplicate ids, unknown or cyclic dependencies) and stays in plan mode', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    await agent.plan_enter({ goal: 'G' });
    const step = (id: number, depends_on?: number[]) => ({
      id,
      description: `s${id}`,
      ...(depends_on ? { depends_on } : {}),
    });
    const plan = (steps: ReturnType<typeof step>[]) => ({ summary: 's', approach: 'a', steps });
    await expectRefusal(
      agent.plan_exit({ plan: plan([step(1), step(1)]) }),
      'INVALID_ARGUMENT',
      /step id 1 appears more than once/,
    );
    await expectRefusal(
      agent.plan_exit({ plan: plan([step(1, [7])]) }),
      'INVALID_ARGUMENT',
      /depends_on 7, which is not a step of this plan/,
    );
    await expectRefusal(agent.plan_exit({ plan: plan([step(1, [1])]) }), 'INVALID_ARGUMENT', /cannot depend on itself/);
    await expectRefusal(agent.plan_exit({ plan: plan([step(1, [2]), step(2, [1])]) }), 'INVALID_ARGUMENT', /cycle/);
    await expectRefusal(
      agent.plan_exit({ plan: { summary: 's', approach: 'a', steps: [] } }),
      'INVALID_ARGUMENT',
      /plan\.steps: a plan needs at least one step/,
    );
    expect(await agent.plan_status({})).toMatchObject({ mode: 'plan' });
    await expectRefusal(agent.getPlanStatus({}), 'NOT_FOUND');
  });

  it('returns to normal mode when the user rejects, and plan mode can start over', async () => {
    h = await startHarness(store);
    const w = await watch(h);
    const agent = await h.client('main');
    const presented = await enterAndPresent(agent);
    const user = await h.client('alice', { role: 'user' });
    expect(await user.plan_reject({ plan_id: presented.plan_id, reason: 'split it in two' })).toMatchObject({
      status: 'rejected',
      plan_status: 'rejected',
      mode: 'normal',
    });
    expect(await agent.plan_status({})).toMatchObject({ mode: 'normal', plan_status: 'rejected', blocked_tools: [] });
    expect(await agent.plan_enter({ goal: 'Smaller goal' })).toMatchObject({ mode: 'plan' });
    await expect.poll(() => w.of('plan_rejected').map((e) => e.payload.reason)).toEqual(['split it in two']);
  });

  it('keeps a plan_modify pending until a user decides, and pushes the decision as plan_modified', async () => {
    h = await startHarness(store);
    const w = await watch(h);
    const agent = await h.client('main');
    const { plan_id } = await enterAndPresent(agent);
    const user = await h.client('alice', { role: 'user' });
    await user.plan_approve({ plan_id });

    const requested = await agent.plan_modify({
      step_id: 2,
      reason: 'Routes live in two files',
      new_description: 'Apply it to protected routes in routes.ts and admin.ts',
      new_files: ['src/routes.ts', 'src/admin.ts'],
    });
    expect(requested).toMatchObject({ status: 'modification_requested', awaiting_approval: true, step_id: 2 });
    expect(await agent.plan_status({})).toMatchObject({
      pending_modification: { step_id: 2, reason: 'Routes live in two files', requested_by: 'main' },
    });
    // Nothing changes before the decision.
    expect((await user.getPlanStatus({ plan_id })).steps[1]?.description).toBe('Apply it to protected routes');
    await expectRefusal(
      agent.plan_modify({ step_id: 3, reason: 'r', new_description: 'd' }),
      'FAILED_PRECONDITION',
      /modification of step 2 is already waiting/,
    );
    await agent.plan_step_complete({ step_id: 1, verification_result: 'ok' });
    await expectRefusal(
      agent.plan_step_complete({ step_id: 2, verification_result: 'x' }),
      'FAILED_PRECONDITION',
      /Step 2 has a modification waiting/,
    );
    await expectRefusal(
      agent.plan_complete({ summary: 'x', deviations: ['y'] }),
      'FAILED_PRECONDITION',
      /still waiting for the user's decision/,
    );

    expect(await user.plan_approve({ agent_id: 'main' })).toMatchObject({
      status: 'modification_approved',
      plan_status: 'in_progress',
      mode: 'executing',
      step_id: 2,
    });
    expect((await user.getPlanStatus({ plan_id })).steps[1]?.description).toBe(
      'Apply it to protected routes in routes.ts and admin.ts',
    );
    expect(await agent.plan_status({})).not.toHaveProperty('pending_modification');

    await agent.plan_modify({ step_id: 3, reason: 'No README', new_description: 'Document in docs/auth.md' });
    expect(await user.plan_reject({ agent_id: 'main', modification: true, reason: 'keep README' })).toMatchObject({
      status: 'modification_rejected',
    });
    expect((await user.getPlanStatus({ plan_id })).steps[2]?.description).toBe('Document the auth header');

    await expect
      .poll(() => w.of('plan_modified').map((e) => [e.payload.state, e.payload.step_id, e.source_agent]))
      .toEqual([
        ['requested', 2, 'main'],
        ['approved', 2, 'alice'],
        ['requested', 3, 'main'],
        ['rejected', 3, 'alice'],
      ]);
    expect(w.of('plan_modified')[1]?.payload).toMatchObject({ new_files: ['src/routes.ts', 'src/admin.ts'] });
  });

  it('completes with unfinished steps only when the deviations say why, recording them as skipped', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    const { plan_id } = await enterAndPresent(agent);
    await agent.plan_step_complete({ step_id: 1, verification_result: 'ok' });
    await expectRefusal(
      agent.plan_complete({ summary: 'partly' }),
      'FAILED_PRECONDITION',
      /Steps 2 \(pending\), 3 \(blocked\) are not complete/,
    );
    const done = await agent.plan_complete({
      summary: 'Middleware only',
      deviations: ['Routes and docs moved to a follow-up plan'],
    });
    expect(done).toMatchObject({
      mode: 'normal',
      deviations: ['Routes and docs moved to a follow-up plan'],
      progress: { completed: 1, skipped: 2, total: 3 },
      skipped_steps: [2, 3],
    });
    const view = await agent.getPlanStatus({ plan_id });
    expect(view).toMatchObject({ status: 'completed', summary: 'Middleware only' });
  });

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

  it('lets only users decide under the "user" policy; dashboards read but never decide', async () => {
    h = await startHarness(store, { approvalPolicy: 'user' });
    const agent = await h.client('main');
    const { plan_id } = await enterAndPresent(agent);
    await expectRefusal(agent.plan_approve({}), 'PERMISSION_DENIED');
    const board = await h.client('board', { role: 'dashboard' });
    expect(await board.plan_status({ agent_id: 'main' })).toMatchObject({ mode: 'awaiting_approval', plan_id });
    await expectRefusal(board.plan_approve({ plan_id }), 'PERMISSION_DENIED');
    const other = await h.client('intruder');
    await expectRefusal(other.plan_reject({ plan_id }), 'PERMISSION_DENIED');
    const user = await h.client('alice', { role: 'user' });
    await user.plan_approve({ plan_id });
    expect(await agent.plan_status({})).toMatchObject({ mode: 'executing' });
  });
});
