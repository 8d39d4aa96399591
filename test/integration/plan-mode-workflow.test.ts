import { renderPlanText } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { expectRefusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { AUTH_PLAN, enterAndPresent, watch } from './plan-mode-support.ts';

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
    expect(presented.plan_id).toMatch(/^plan_\d{4}-\d{2}-\d{2}_[a-z0-9]{8}$/);
    expect(presented.markdown).toContain('# Implementation Plan: Add authentication');
    expect(presented.markdown).toContain('Write the token validation middleware');
    expect(presented.message).toMatch(
      new RegExp(
        `^Plan saved and awaiting approval \\(plan_id: ${presented.plan_id}\\)\\.\\nIMPORTANT: You MUST now present the ` +
          'full plan to the user in your response\\.',
      ),
    );
    expect(presented.message).toContain(presented.markdown);
    // As upstream: writes are allowed again once the plan is presented.
    expect(await agent.isToolBlocked('write_file')).toBe(false);
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

  it('completes with unfinished steps as upstream does, recording them as skipped with a warning', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await enterAndPresent(agent);
    await agent.plan_step_complete({ step_id: 1, verification_result: 'ok' });
    const done = await agent.plan_complete({ summary: 'partly' });
    expect(done).toMatchObject({ mode: 'normal', deviations: [], skipped_steps: [2, 3] });
    expect(done.warning).toMatch(/^Steps 2 \(pending\), 3 \(blocked\) were not complete; .*deviations/);
  });

  it('completes with unfinished steps named in the deviations, recording them as skipped', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    const { plan_id } = await enterAndPresent(agent);
    await agent.plan_step_complete({ step_id: 1, verification_result: 'ok' });
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
});
