import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

const STEP_FIELDS = ['step_id', 'sequence', 'description', 'status', 'result', 'error', 'total_steps', 'progress'];

describe.each(STORE_KINDS)("seed 000 answers carry upstream's fields at the same level (%s store)", (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it("answers upstream's basic lifecycle with its own field names, nulls included", async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    const created = await agent.createPlan({
      title: 'Deploy Feature',
      steps: ['Run tests', 'Build', 'Deploy', 'Verify'],
    });
    expect(created.progress).toMatchObject({ total: 4, pending: 4, percent: 0 });
    expect(created.steps[0]).toMatchObject({ result: null, error: null, started_at: null, completed_at: null });

    const started = await agent.startPlan({});
    expect(started).toMatchObject({ confirmed: true, plan_id: created.plan_id, title: 'Deploy Feature' });
    expect(started.steps.map((s) => [s.sequence, s.description])).toEqual([
      [1, 'Run tests'],
      [2, 'Build'],
      [3, 'Deploy'],
      [4, 'Verify'],
    ]);

    expect((await agent.getPlanStatus({})).current_step).toBeNull();
    const running = await agent.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    expect(Object.keys(running)).toEqual(expect.arrayContaining([...STEP_FIELDS, 'message', 'step', 'instruction']));
    expect(running).toMatchObject({ step_id: 'step_1', sequence: 1, status: 'in_progress', result: null, error: null });
    expect(running.total_steps).toBe(4);
    expect(running.instruction).toMatch(/^Step is now in progress\. Proceed immediately with: Run tests/);
    expect((await agent.getPlanStatus({})).current_step).toBe(1);

    const done = await agent.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'All tests passed' });
    expect(done).toMatchObject({ status: 'completed', result: 'All tests passed', error: null });
    expect(done.instruction).toBe('Step completed. Proceed immediately to next step: Build (step_2).');
    const status = await agent.getPlanStatus({});
    // Upstream sets current_step on in_progress and never clears it: the step started last.
    expect(status).toMatchObject({ current_step: 1, completed_at: null, summary: null });
    expect(status.progress).toMatchObject({ completed: 1, pending: 3 });
    expect(status.steps[0]).toMatchObject({ step_id: 'step_1', result: 'All tests passed', error: null });
    expect(status.steps[0]?.started_at).toEqual(expect.any(String));

    const added = await agent.addStep({ description: 'Inserted', after_step_id: 'step_1' });
    expect(added).toMatchObject({ sequence: 2, total_steps: 5, status: 'pending', result: null, error: null });
    for (const id of ['step_2', 'step_3', 'step_4']) await agent.setStepStatus({ step_id: id, status: 'completed' });
    expect((await agent.getPlanStatus({})).current_step).toBe(1);
    const last = await agent.execute('setStepStatus', { step_id: 'step_5', status: 'completed' });
    expect(last).toMatchObject({ instruction: 'All steps completed. Call completePlan to finalize.' });
    const ended = await agent.completePlan({ status: 'completed', summary: 'Feature deployed successfully' });
    expect(ended).toMatchObject({
      title: 'Deploy Feature',
      status: 'completed',
      summary: 'Feature deployed successfully',
    });
    expect(ended.completed_at).toEqual(expect.any(String));
    expect(ended.progress.percent).toBe(100);
    expect(ended.warning).toBeUndefined();
  });

  it("answers the cross-agent tools with upstream's fields, through the wire and through execute()", async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const main = await h.client('main');
    const implementer = await h.client('implementer');
    const sub = await main.subscribeToTasks({ event_types: ['plan_created', 'step_completed'] });
    // Upstream's EventFilter.to_dict(): no agent named is None.
    expect(sub.filter).toEqual({
      agent_id: null,
      plan_id: null,
      step_id: null,
      event_types: ['plan_created', 'step_completed'],
    });
    const listed = await main.listSubscriptions({});
    expect(listed.subscriptions[0]).toMatchObject({
      subscription_id: sub.subscription_id,
      subscriber_agent: 'main',
      filter: sub.filter,
      match_count: 0,
    });

    await main.createPlan({ title: 'Parent', steps: ['Spawn', 'Await results', 'Finish'] });
    await main.startPlan({});
    await implementer.createPlan({ title: 'Child', steps: ['Do work', 'final'] });
    await implementer.startPlan({});
    const waiting = await main.execute('addDependentStep', {
      step_id: 'step_2',
      depends_on: [
        { agent_id: 'implementer', step_id: 'step_2' },
        { agent_id: 'implementer', step_id: 'step_1' },
      ],
    });
    expect(waiting).toMatchObject({
      step_id: 'step_2',
      sequence: 2,
      description: 'Await results',
      status: 'blocked',
      result: null,
      error: null,
      total_steps: 3,
      progress: { blocked: 1, percent: 0 },
      message: expect.stringMatching(/^Added 2 dependencies to existing step \(BLOCKED\)/) as string,
    });
    const blocked = await main.getBlockedSteps({});
    expect(blocked.blocked_steps[0]).toMatchObject({ step_id: 'step_2', sequence: 2 });
    expect(blocked.blocked_steps[0]?.depends_on).toHaveLength(2);

    const output = { passed: true, results: ['file1.py created'] };
    const completed = await implementer.execute('completeStepWithOutput', { step_id: 'step_2', output });
    expect(completed).toMatchObject({
      step_id: 'step_2',
      sequence: 2,
      description: 'final',
      status: 'completed',
      output,
      result: null,
      total_steps: 2,
      message: 'Step completed with output. Dependent steps will be notified.',
    });

    expect(await main.execute('unsubscribe', { subscription_id: sub.subscription_id })).toMatchObject({
      success: true,
      subscription_id: sub.subscription_id,
      message: expect.stringMatching(/^Subscription removed/) as string,
    });
    expect(await main.execute('unsubscribe', { subscription_id: 'sub_unknown' })).toMatchObject({
      success: false,
      subscription_id: 'sub_unknown',
      message: expect.stringMatching(/^Subscription not found/) as string,
    });
  });

  it("starts model-facing refusals with upstream's text, through execute() as {error}", async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    const refusal = async (tool: string, args: Record<string, unknown>) =>
      ((await agent.execute(tool, args)) as { error: string }).error;
    expect(await refusal('createPlan', { steps: ['a'] })).toMatch(/^title is required\./);
    expect(await refusal('createPlan', { title: 'T', steps: [] })).toMatch(/^steps must be a non-empty array\./);
    expect(await refusal('createPlan', { title: 'T', steps: [1] })).toMatch(/^all steps must be strings/);
    expect(await refusal('addStep', {})).toMatch(/^description is required\./);
    expect(await refusal('subscribeToTasks', {})).toMatch(/^event_types is required\./);
    expect(await refusal('subscribeToTasks', { event_types: [] })).toMatch(/^event_types is required\./);
    expect(await refusal('subscribeToTasks', { event_types: ['nope'] })).toMatch(/^Invalid event type: nope\./);
    expect(await refusal('completePlan', { status: 'done' })).toMatch(
      /^Invalid status: done\. Must be one of: completed, failed, cancelled/,
    );

    await agent.createPlan({ title: 'Never started', steps: ['a'] });
    expect(await refusal('setStepStatus', { step_id: 'step_1', status: 'completed' })).toMatch(
      /^Plan not started\. Call startPlan first to confirm the plan\./,
    );
    expect(await refusal('completePlan', { status: 'completed' })).toMatch(
      /^Cannot mark plan as 'completed' - plan was never started\. Use 'cancelled' if the plan was rejected\./,
    );
    // "the same wording with 'failed' for a failed status" (upstream refuses both; PlanHub accepted failed).
    expect(await refusal('completePlan', { status: 'failed' })).toMatch(
      /^Cannot mark plan as 'failed' - plan was never started\. Use 'cancelled' if the plan was rejected\./,
    );
    await agent.completePlan({ status: 'cancelled' });
    // completePlan cleared the current plan: startPlan has no active plan to start.
    expect(await refusal('startPlan', {})).toMatch(/^No active plan\. Create a plan first with createPlan\./);

    await agent.createPlan({ title: 'Refactor auth', steps: ['a', 'b', 'c', 'd'] });
    await agent.startPlan({});
    expect(await refusal('startPlan', {})).toMatch(/^Plan already started\. Proceed with setStepStatus\./);
    expect(await refusal('createPlan', { title: 'Again', steps: ['x'] })).toMatch(
      /^An active plan already exists: 'Refactor auth' \(4 pending, 0 in progress\)\. Do NOT recreate the plan/,
    );
    expect(await refusal('setStepStatus', { step_id: 'nonexistent', status: 'completed' })).toMatch(
      /^Step not found: nonexistent\./,
    );
  });
  it("answers upstream's no-plan refusals tool by tool, also once the last plan ended", async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const main = await h.client('main');
    const worker = await h.client('worker');
    const refusal = async (agent: typeof main, tool: string, args: Record<string, unknown>) =>
      ((await agent.execute(tool, args)) as { error: string }).error;
    const dep = [{ agent_id: 'w', step_id: 's' }];
    expect(await refusal(main, 'getPlanStatus', {})).toBe(
      'No plan found for this agent. Create a plan first with createPlan.',
    );
    expect(await refusal(worker, 'getPlanStatus', {})).toBe(
      'No plan found for this agent (agent: worker). Create a plan first with createPlan.',
    );
    expect(await refusal(main, 'getBlockedSteps', {})).toBe('No plan found. Create a plan first with createPlan.');
    expect(await refusal(worker, 'setStepStatus', { step_id: 's', status: 'completed' })).toBe(
      'No active plan. Create a plan first with createPlan. (agent=worker)',
    );
    for (const [tool, args] of [
      ['startPlan', {}],
      ['completePlan', { status: 'completed' }],
      ['addStep', { description: 'd' }],
      ['addDependentStep', { step_id: 's', depends_on: dep }],
      ['completeStepWithOutput', { step_id: 's', output: {} }],
    ] as const)
      expect(await refusal(main, tool, args), tool).toBe('No active plan. Create a plan first with createPlan.');

    // Upstream's test: completePlan clears the current plan, so getPlanStatus has none; the ended plan stays
    // readable by its id, which the refusal names.
    const { plan_id } = await main.createPlan({ title: 'Done soon', steps: ['a'] });
    await main.startPlan({});
    expect((await main.getPlanStatus({})).plan_id).toBe(plan_id);
    await main.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await main.completePlan({ status: 'completed' });
    const after = await refusal(main, 'getPlanStatus', {});
    expect(after).toBe(
      'No plan found for this agent. Create a plan first with createPlan. ' +
        `Your last plan, ${plan_id}, has ended; read it with getPlanStatus(plan_id="${plan_id}").`,
    );
    expect(await refusal(main, 'getBlockedSteps', {})).toMatch(
      /^No plan found\. Create a plan first with createPlan\./,
    );
    expect(await refusal(main, 'addStep', { description: 'more' })).toMatch(/^No active plan\. Create a plan first/);
    expect(await main.getPlanStatus({ plan_id })).toMatchObject({ plan_id, status: 'completed' });
    // Another agent reading main's plans still gets the last one (a parent reading its subagent's finished work).
    expect(await worker.getPlanStatus({ agent_id: 'main' })).toMatchObject({ plan_id, status: 'completed' });
  });

  it("refuses malformed subscriptions and dependencies in upstream's words", async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    const refusal = async (tool: string, args: Record<string, unknown>) =>
      ((await agent.execute(tool, args)) as { error: string }).error;
    expect(await refusal('unsubscribe', {})).toMatch(/^subscription_id is required\./);
    await agent.createPlan({ title: 'P', steps: ['a'] });
    await agent.startPlan({});
    expect(await refusal('addDependentStep', { step_id: 'step_1' })).toMatch(
      /^depends_on is required and must not be empty\./,
    );
    expect(await refusal('addDependentStep', { step_id: 'step_1', depends_on: [] })).toMatch(
      /^depends_on is required and must not be empty\./,
    );
    for (const bad of [{ agent_id: 'w' }, { step_id: 's' }, { agent_id: '', step_id: 's' }])
      expect(await refusal('addDependentStep', { step_id: 'step_1', depends_on: [bad] })).toMatch(
        /^Each dependency must have agent_id and step_id\./,
      );
    expect(await refusal('addDependentStep', { step_id: 'x', depends_on: [{ agent_id: 'w', step_id: 's' }] })).toMatch(
      /^Step 'x' not found in plan\./,
    );
  });
});
