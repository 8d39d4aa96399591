import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { expectRefusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { AUTH_PLAN, enterAndPresent, watch } from './plan-mode-support.ts';

/**
 * Seed 002 inputs upstream accepts that PlanHub once refused: plan_enter while an approved plan is executing, and
 * plan_modify's reason and new_description as empty strings (upstream checks only their type).
 */
describe.each(STORE_KINDS)('dialect 002: what upstream accepts (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('enters plan mode while executing, cancelling the approved plan so the steps waiting on it resolve', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const { of } = await watch(h);
    const agent = await h.client('main');
    const presented = await enterAndPresent(agent);
    await agent.plan_step_complete({ step_id: 1, verification_result: 'tests pass' });
    // Another agent waits on step 3, which nobody will do once the plan is dropped.
    const other = await h.client('other');
    const waiting = (await other.createPlan({ title: 'Use auth', steps: ['Wait for the docs'] })).steps[0]!.step_id;
    await other.startPlan({});
    const step3 = (await agent.getPlanStatus({ plan_id: presented.plan_id })).steps[2]!.step_id;
    await other.addDependentStep({ step_id: waiting, depends_on: [{ agent_id: 'main', step_id: step3 }] });
    expect((await other.getPlanStatus({})).steps[0]?.status).toBe('blocked');

    const entered = await agent.plan_enter({ goal: 'Rethink the approach' });

    expect(entered).toMatchObject({
      status: 'entered',
      mode: 'plan',
      goal: 'Rethink the approach',
      blocked_tools: ['write_file', 'cron_create', 'cron_delete'],
      cancelled_plan_id: presented.plan_id,
    });
    expect(entered.warning).toMatch(/is now cancelled, with 1 of 3 steps completed/);
    expect(await agent.plan_status({})).toMatchObject({ mode: 'plan', goal: 'Rethink the approach' });
    const old = await agent.getPlanStatus({ plan_id: presented.plan_id });
    expect(old.status).toBe('cancelled');
    expect(old.steps.map((s) => s.status)).toEqual(['completed', 'skipped', 'skipped']);
    expect((await other.getPlanStatus({})).steps[0]?.status).toBe('pending');
    await eventually(() =>
      expect(of('mode_changed').map((e) => `${String(e.payload.from)}→${String(e.payload.to)}`)).toEqual([
        'normal→plan',
        'plan→executing',
        'executing→plan',
      ]),
    );
    const log = await h.server.services.store.readEvents('ws', { count: 1000 });
    expect(log.filter((e) => e.event_type === 'plan_cancelled').map((e) => e.source_plan_id)).toEqual([
      presented.plan_id,
    ]);
    // The new round runs as the first did.
    const next = await agent.plan_exit({ plan: AUTH_PLAN });
    expect(next).toMatchObject({ mode: 'executing' });
    expect(await agent.plan_step_complete({ step_id: 1, verification_result: 'ok' })).toMatchObject({
      plan_id: next.plan_id,
    });
  });

  it("answers plan_manage enter while executing with upstream's fields through execute()", async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    const { plan_id } = await enterAndPresent(agent);
    const answer = await agent.execute('plan_manage', { action: 'enter', goal: 'Something else' });
    expect(answer).toMatchObject({
      status: 'entered',
      mode: 'plan',
      blocked_tools: ['write_file', 'cron_create', 'cron_delete'],
      cancelled_plan_id: plan_id,
    });
    // Upstream's two refusals of enter still stand.
    await expectRefusal(agent.plan_enter({ goal: 'Again' }), 'FAILED_PRECONDITION', /^Already in plan mode/);
  });

  it('accepts empty reason and new_description in plan_modify and plan_manage, as upstream checks only types', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    const { plan_id } = await enterAndPresent(agent);
    expect(await agent.plan_modify({ step_id: 2, reason: '', new_description: '' })).toMatchObject({
      status: 'modification_approved',
      step_id: 2,
      reason: '',
      new_description: '',
    });
    expect(
      await agent.plan_manage({ action: 'modify', step_id: 3, reason: '', new_description: 'Document it' }),
    ).toMatchObject({ status: 'modification_approved', reason: '' });
    const steps = (await agent.getPlanStatus({ plan_id })).steps;
    expect(steps.map((s) => s.description)).toEqual(['Write the token validation middleware', '', 'Document it']);
    // Not a string is still refused, in upstream's words.
    expect(await agent.execute('plan_modify', { step_id: 2, reason: 7, new_description: '' })).toMatch(
      /^Error: plan_modify requires 'reason' \(string\)\. /,
    );
    expect(await agent.execute('plan_manage', { action: 'modify', step_id: 2, reason: '' })).toMatch(
      /^Error: plan_manage\(action: 'modify'\) requires 'new_description' \(string\)\. /,
    );
  });

  it('accepts a plan object whose texts are empty, and still refuses an empty summary for plan_complete as upstream', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await agent.plan_enter({ goal: 'G' });
    const presented = await agent.plan_exit({
      plan: { summary: '', approach: '', steps: [{ id: 1, description: '' }] },
    });
    expect(presented).toMatchObject({ mode: 'executing', steps: [{ description: '' }] });
    // Upstream's executor refuses `summary.length === 0` for complete (unlike modify's texts).
    expect(await agent.execute('plan_complete', { summary: '' })).toMatch(
      /^Error: plan_complete requires a 'summary' argument \(string\)\. /,
    );
    expect(await agent.execute('plan_manage', { action: 'complete', summary: '' })).toMatch(
      /^Error: plan_manage\(action: 'complete'\) requires a 'summary' argument \(string\)\. /,
    );
  });
});
