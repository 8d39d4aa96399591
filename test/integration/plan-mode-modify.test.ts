import { afterEach, describe, expect, it } from 'vitest';
import { expectRefusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { enterAndPresent, watch } from './plan-mode-support.ts';

describe.each(STORE_KINDS)('dialect 002: plan_modify waits for a decision (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

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

  it('stops showing a modification as waiting once its plan ended through another dialect', async () => {
    h = await startHarness(store, { approvalPolicy: 'user' });
    const agent = await h.client('main');
    const { plan_id } = await enterAndPresent(agent);
    const user = await h.client('alice', { role: 'user' });
    await user.plan_approve({ plan_id });
    await agent.plan_modify({ step_id: 2, reason: 'r', new_description: 'Apply it to every route' });
    const board = await h.client('board', { role: 'dashboard' });
    const waiting = async () => (await board.getWorkspace({})).agents.find((a) => a.agent_id === 'main');
    expect((await waiting())?.pending_modifications).toMatchObject([{ plan_id, step_id: 2 }]);

    // Seed 000's completePlan ends the plan with the request still open: nobody can decide it any more, so no
    // dashboard may keep offering Approve / Reject for it.
    await agent.completePlan({ plan_id, status: 'failed', summary: 'abandoned' });
    expect((await waiting())?.pending_modifications).toEqual([]);
    await expectRefusal(user.plan_approve({ plan_id, modification: true }), 'FAILED_PRECONDITION');
    expect(await agent.plan_status({})).toMatchObject({ mode: 'normal', plan_status: 'failed' });
    expect(await agent.plan_status({})).not.toHaveProperty('pending_modification');
  });

  it('changes a step that already ended, as upstream changes any step, and keeps its status', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const { plan_id } = await enterAndPresent(agent);
    const user = await h.client('alice', { role: 'user' });
    await user.plan_approve({ plan_id });
    await agent.plan_step_complete({ step_id: 1, verification_result: 'ok' });
    // Asked after the step ended (upstream: any step it finds; only an unknown one is refused).
    expect(
      await agent.plan_modify({ step_id: 1, reason: 'record what was done', new_description: 'Wrote it with jose' }),
    ).toMatchObject({ step_id: 1 });
    expect(await user.plan_approve({ plan_id, modification: true })).toMatchObject({
      step: { id: 1, description: 'Wrote it with jose', status: 'completed' },
    });
    // Asked while the step was open, and ended by another dialect before the decision.
    await agent.plan_modify({ step_id: 2, reason: 'r', new_description: 'Apply it to every route' });
    await agent.setStepStatus({ plan_id, step_id: 'step_2', status: 'completed', result: 'done as planned' });
    await user.plan_approve({ plan_id, modification: true });
    const steps = (await user.getPlanStatus({ plan_id })).steps;
    expect(steps.slice(0, 2).map((s) => [s.description, s.status])).toEqual([
      ['Wrote it with jose', 'completed'],
      ['Apply it to every route', 'completed'],
    ]);
    expect(await agent.plan_status({})).not.toHaveProperty('pending_modification');
  });
});
