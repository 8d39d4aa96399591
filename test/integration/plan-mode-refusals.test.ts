import { afterEach, describe, expect, it } from 'vitest';
import { expectRefusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { AUTH_PLAN, enterAndPresent } from './plan-mode-support.ts';

describe.each(STORE_KINDS)('dialect 002: refusals and who decides (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

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
    // Any number is a step id, as upstream takes it: 1.5 is refused only because no step carries it.
    await expectRefusal(agent.plan_step_complete({ step_id: 1.5, verification_result: 'x' }), 'NOT_FOUND');
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
    await expectRefusal(agent.plan_enter({ goal: 'other' }), 'FAILED_PRECONDITION', /^A plan is awaiting approval\./);
    await agent.plan_approve({});
    await expectRefusal(agent.plan_approve({}), 'NOT_FOUND', /^No plan awaiting approval/);
    // Only the three calls that succeeded left a trace: the refused ones wrote and announced nothing.
    expect(await agent.plan_status({})).toMatchObject({ mode: 'executing', goal: 'G' });
    const log = await h.server.services.store.readEvents('ws', { count: 1000 });
    expect(log.filter((e) => e.event_type === 'plan_created')).toHaveLength(1);
    expect(
      log
        .filter((e) => e.event_type === 'mode_changed')
        .map((e) => `${String(e.payload.from)}→${String(e.payload.to)}`),
    ).toEqual(['normal→plan', 'plan→awaiting_approval', 'awaiting_approval→executing']);
  });

  it('words each state\'s refusal as a sentence, after upstream\'s "No active plan"', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const complete = () => agent.plan_step_complete({ step_id: 1, verification_result: 'x' });
    await expectRefusal(
      complete(),
      'FAILED_PRECONDITION',
      /^No active plan: you are in normal mode, so there is no plan to complete steps of\. /,
    );
    await expectRefusal(
      agent.plan_complete({ summary: 'x' }),
      'FAILED_PRECONDITION',
      /^No active plan: you are in normal mode, so there is no plan to complete\. /,
    );
    const { plan_id } = await enterAndPresent(agent);
    const awaiting = `No active plan: plan ${plan_id} is awaiting the user's approval; you cannot`;
    await expectRefusal(
      complete(),
      'FAILED_PRECONDITION',
      `${awaiting} complete steps of it before it is approved. Wait for the plan_approved or plan_rejected event`,
    );
    await expectRefusal(
      agent.plan_modify({ step_id: 1, reason: 'r', new_description: 'd' }),
      'FAILED_PRECONDITION',
      `${awaiting} modify it before it is approved.`,
    );
  });

  it('refuses malformed plans (unknown or cyclic dependencies) and stays in plan mode', async () => {
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
      agent.plan_exit({ plan: plan([step(1, [7])]) }),
      'INVALID_ARGUMENT',
      /depends_on 7, which is not a step of this plan/,
    );
    await expectRefusal(agent.plan_exit({ plan: plan([step(1, [1])]) }), 'INVALID_ARGUMENT', /cannot depend on itself/);
    await expectRefusal(agent.plan_exit({ plan: plan([step(1, [2]), step(2, [1])]) }), 'INVALID_ARGUMENT', /cycle/);
    await expectRefusal(
      agent.plan_exit({ plan: { summary: 's', approach: 'a', steps: [] } }),
      'INVALID_ARGUMENT',
      /^plan\.steps is required \(non-empty array\)\. /,
    );
    expect(await agent.plan_status({})).toMatchObject({ mode: 'plan' });
    await expectRefusal(agent.getPlanStatus({}), 'NOT_FOUND');
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
