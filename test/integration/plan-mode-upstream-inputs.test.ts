import { afterEach, describe, expect, it } from 'vitest';
import { expectRefusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { AUTH_PLAN, enterAndPresent } from './plan-mode-support.ts';

const UPSTREAM_NOT_IN_PLAN_MODE = 'Not in plan mode. Call plan_enter first.';

/**
 * Inputs Triggerfish accepts that PlanHub refused, and a refusal whose text did not start with upstream's: PlanHub
 * answers a superset of upstream (docs/dialects.md, its opening paragraphs).
 */
describe.each(STORE_KINDS)('dialect 002: inputs and refusals as upstream takes them (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it("starts plan_exit's refusal with upstream's text when a plan was already presented or is executing", async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const { plan_id } = await enterAndPresent(agent);
    for (const call of [
      () => agent.plan_exit({ plan: AUTH_PLAN }),
      () => agent.plan_manage({ action: 'exit', plan: AUTH_PLAN }),
    ])
      await expectRefusal(
        call(),
        'FAILED_PRECONDITION',
        `${UPSTREAM_NOT_IN_PLAN_MODE} Plan ${plan_id} was already presented (mode awaiting_approval); wait for the decision.`,
      );
    // What the SDK hands the model: upstream's "Error: …" string, PlanHub's guidance after it.
    expect(await agent.execute('plan_exit', { plan: AUTH_PLAN })).toEqual(
      expect.stringMatching(/^Error: Not in plan mode\. Call plan_enter first\. Plan plan_\S+ was already presented/),
    );
    await agent.plan_approve({});
    const err = await expectRefusal(agent.plan_exit({ plan: AUTH_PLAN }), 'FAILED_PRECONDITION');
    expect(err.message.startsWith(`${UPSTREAM_NOT_IN_PLAN_MODE} Plan ${plan_id} `)).toBe(true);
    expect(err.message).toMatch(/\(mode executing\); change a step with plan_modify\.$/);
    expect(await agent.plan_status({})).toMatchObject({ mode: 'executing', plan_id });
  });

  /** An agent executing an auto-approved plan of these steps. */
  const executing = async (steps: Array<{ id: number; description: string; depends_on?: number[] }>) => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await agent.plan_enter({ goal: 'G' });
    return { agent, exited: await agent.plan_exit({ plan: { summary: 's', approach: 'a', steps } }) };
  };

  it('accepts repeated step ids: each completes in turn, a dependency on the id waits for all of them', async () => {
    const { agent, exited } = await executing([
      { id: 1, description: 'first one' },
      { id: 1, description: 'second one' },
      { id: 2, description: 'after both', depends_on: [1] },
    ]);
    expect(exited.mode).toBe('executing');
    expect(exited.plan.steps.map((s) => s.id)).toEqual([1, 1, 2]);
    await expectRefusal(
      agent.plan_step_complete({ step_id: 2, verification_result: 'x' }),
      'FAILED_PRECONDITION',
      /Step 2 depends on step 1 \(pending\), step 1 \(pending\)/,
    );
    // plan_modify changes the first step carrying the id that is still to do.
    await agent.plan_modify({ step_id: 1, reason: 'r', new_description: 'first one, changed' });
    const first = await agent.plan_step_complete({ step_id: 1, verification_result: 'ok' });
    expect(first).toMatchObject({ step_id: 1, progress: { completed_steps: 1, next_step: 1 } });
    expect(first.message).toBe('Step 1 complete. Next: step 1: second one');
    await agent.plan_modify({ step_id: 1, reason: 'r', new_description: 'second one, changed' });
    await expectRefusal(
      agent.plan_step_complete({ step_id: 2, verification_result: 'x' }),
      'FAILED_PRECONDITION',
      /step 1 \(pending\)/,
    );
    const second = await agent.plan_step_complete({ step_id: 1, verification_result: 'ok' });
    expect(second).toMatchObject({ step_id: 1, unblocked: [2], progress: { completed_steps: 2, next_step: 2 } });
    await expectRefusal(
      agent.plan_step_complete({ step_id: 1, verification_result: 'again' }),
      'FAILED_PRECONDITION',
      'Step 1 already completed.',
    );
    await agent.plan_step_complete({ step_id: 2, verification_result: 'ok' });
    const view = await agent.getPlanStatus({ plan_id: exited.plan_id });
    expect(view.steps.map((s) => [s.description, s.status])).toEqual([
      ['first one, changed', 'completed'],
      ['second one, changed', 'completed'],
      ['after both', 'completed'],
    ]);
  });

  it('accepts any number as a step id and repeats it exactly in answers and the plan markdown', async () => {
    const { agent, exited } = await executing([
      { id: 1.5, description: 'half' },
      { id: -1, description: 'negative', depends_on: [1.5] },
    ]);
    expect(exited.markdown).toContain('- [ ] **Step 1.5:** half\n  - Files: (none)\n  - Depends on: —');
    expect(exited.markdown).toContain('- [ ] **Step -1:** negative\n  - Files: (none)\n  - Depends on: Step 1.5');
    expect(await agent.plan_status({})).toMatchObject({ active_plan_progress: { current_step: 1.5 } });
    const done = await agent.plan_step_complete({ step_id: 1.5, verification_result: 'ok' });
    expect(done).toMatchObject({ step_id: 1.5, unblocked: [-1], progress: { next_step: -1 } });
    expect(done.message).toBe('Step 1.5 complete. Next: step -1: negative');
    const modified = await agent.plan_modify({ step_id: -1, reason: 'r', new_description: 'still negative' });
    expect(modified.step_id).toBe(-1);
    expect(await agent.execute('plan_step_complete', { step_id: -1, verification_result: 'ok' })).toMatchObject({
      step_id: -1,
    });
  });

  it("reads null optional lists and step fields as absent, filling upstream's empty defaults", async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    await agent.plan_enter({ goal: 'G' });
    // Sent as is (the SDK's execute() drops nulls before they leave the host; a raw or MCP client does not).
    const exited = await agent.call('plan_exit', {
      plan: {
        summary: 's',
        approach: 'a',
        steps: [
          { id: 1, description: 'd', files: null, depends_on: null, verification: null },
          { id: 2, description: 'e', depends_on: [1] },
        ],
        alternatives_considered: null,
        risks: null,
        files_to_create: null,
        files_to_modify: null,
        tests_to_write: null,
        estimated_complexity: null,
      },
    } as never);
    expect(exited).toMatchObject({
      status: 'plan_presented',
      plan: {
        alternatives_considered: [],
        risks: [],
        files_to_create: [],
        files_to_modify: [],
        tests_to_write: [],
        estimated_complexity: 'medium',
        steps: [{ id: 1, description: 'd' }, { id: 2 }],
      },
    });
    expect(Object.keys(JSON.parse(JSON.stringify(exited.plan.steps[0])) as object)).toEqual(['id', 'description']);
  });

  it('keeps a todo whose content is only spaces, as sent', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const written = await agent.todo_write({
      todos: [{ id: '1', content: '  ', status: 'pending', priority: 'low' }],
    });
    expect(written.todos.map((t) => t.content)).toEqual(['  ']);
    expect((await agent.todo_read({})).todos.map((t) => t.content)).toEqual(['  ']);
    await expectRefusal(
      agent.todo_write({ todos: [{ id: '1', content: '', status: 'pending', priority: 'low' }] }),
      'INVALID_ARGUMENT',
    );
  });

  it('takes a goal of spaces and an empty scope, as upstream refuses only a goal of length 0', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    expect(await agent.plan_enter({ goal: '   ', scope: '' })).toMatchObject({ status: 'entered', mode: 'plan' });
    expect(await agent.plan_status({})).toMatchObject({ mode: 'plan', goal: '   ' });
    await agent.plan_reject({});
    await expectRefusal(
      agent.plan_enter({ goal: '' }),
      'INVALID_ARGUMENT',
      "plan_enter requires a 'goal' argument (string).",
    );
  });
});
