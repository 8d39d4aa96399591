import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

describe.each(STORE_KINDS)('seed 000 accepts what upstream accepts (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it("runs the seed's workflow example as written: completed with unfinished steps, honestly", async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const user = await h.client('alice', { role: 'user' });
    await agent.createPlan({
      title: 'Refactor auth module',
      steps: [
        'Review current auth implementation',
        'Extract token validation to separate module',
        'Add unit tests for new module',
        'Update imports in dependent files',
      ],
    });
    const starting = agent.startPlan({ message: 'Ready to proceed?' });
    await expect.poll(async () => (await user.getPlanStatus({ agent_id: 'main' })).status).toBe('awaiting_approval');
    await user.plan_approve({ agent_id: 'main' });
    expect(await starting).toMatchObject({ confirmed: true });
    await agent.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await agent.setStepStatus({ step_id: 'step_2', status: 'in_progress' });
    const done = await agent.completePlan({ status: 'completed', summary: 'Refactoring done' });

    const unfinished = [
      {
        step_id: 'step_2',
        sequence: 2,
        description: 'Extract token validation to separate module',
        status: 'in_progress',
      },
      { step_id: 'step_3', sequence: 3, description: 'Add unit tests for new module', status: 'pending' },
      { step_id: 'step_4', sequence: 4, description: 'Update imports in dependent files', status: 'pending' },
    ];
    expect(done).toMatchObject({ status: 'completed', summary: 'Refactoring done', unfinished_steps: unfinished });
    expect(done.warning).toMatch(/3 unfinished step\(s\).*completePlan\(status="failed"\)/);
    const plan = await agent.getPlanStatus({ plan_id: done.plan_id });
    expect(plan.steps.map((s) => s.status)).toEqual(['completed', 'in_progress', 'pending', 'pending']);
    const { events } = await user.getTaskEvents({ event_types: ['plan_completed'] });
    expect(events.at(-1)?.payload).toMatchObject({
      summary: 'Refactoring done',
      warning: done.warning,
      unfinished_steps: unfinished,
    });
  });

  it('takes ended steps reported again and pending, and a resolved dependency stays resolved', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const worker = await h.client('worker');
    const parent = await h.client('parent');
    await worker.createPlan({ title: 'Work', steps: ['Try', 'Polish'] });
    await worker.startPlan({});
    await parent.createPlan({ title: 'Parent', steps: ['Await'] });
    await parent.startPlan({});
    await parent.addDependentStep({ step_id: 'step_1', depends_on: [{ agent_id: 'worker', step_id: 'step_1' }] });

    const failed = await worker.setStepStatus({ step_id: 'step_1', status: 'failed', error: 'Network timeout' });
    expect(failed).toMatchObject({ status: 'failed', error: 'Network timeout' });
    const waiting = await parent.getPlanStatus({});
    expect(waiting.steps[0]?.status).toBe('pending');
    expect(waiting.steps[0]?.received_outputs).toMatchObject({ 'worker:step_1': { status: 'failed' } });

    const retried = await worker.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'Worked on retry' });
    expect(retried).toMatchObject({ status: 'completed', result: 'Worked on retry' });
    const reopened = await worker.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    expect(reopened).toMatchObject({ status: 'in_progress', step: { completed_at: null } });
    const unchanged = await worker.setStepStatus({ step_id: 'step_2', status: 'pending' });
    expect(unchanged).toMatchObject({ step_id: 'step_2', status: 'pending' });

    const after = await parent.getPlanStatus({});
    expect(after.steps[0]?.status).toBe('pending');
    expect(after.steps[0]?.received_outputs).toMatchObject({ 'worker:step_1': { status: 'failed' } });
  });

  it('takes status "blocked" as a no-op and applies a repeated status that brings a new result or output', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const worker = await h.client('worker');
    const watcher = await h.client('watcher');
    await worker.createPlan({ title: 'Work', steps: ['Build', 'Ship'] });
    await worker.startPlan({});

    const noop = await worker.setStepStatus({ step_id: 'step_1', status: 'blocked' });
    expect(noop).toMatchObject({ step_id: 'step_1', status: 'pending', result: null });
    expect(noop.warning).toMatch(/^Nothing changed: step_1 is still pending\./);
    expect((await worker.getPlanStatus({})).steps[0]?.status).toBe('pending');

    await worker.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'built v1' });
    const amended = await worker.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'built v2' });
    expect(amended).toMatchObject({ status: 'completed', result: 'built v2' });
    expect((await worker.getPlanStatus({})).steps[0]?.result).toBe('built v2');
    const withOutput = await worker.execute('completeStepWithOutput', { step_id: 'step_1', output: { version: 2 } });
    expect(withOutput).toMatchObject({ step_id: 'step_1', status: 'completed', output: { version: 2 } });
    expect((await worker.getPlanStatus({})).steps[0]?.output).toEqual({ version: 2 });

    const { events } = await watcher.getTaskEvents({ agent_id: 'worker', event_types: ['step_completed'] });
    expect(events.map((e) => e.payload)).toEqual([
      expect.objectContaining({ result: 'built v1' }),
      expect.objectContaining({ result: 'built v2' }),
      expect.objectContaining({ output: { version: 2 } }),
    ]);
    // A bare repeat (a retry) changes and announces nothing.
    await worker.setStepStatus({ step_id: 'step_1', status: 'completed' });
    expect((await watcher.getTaskEvents({ agent_id: 'worker', event_types: ['step_completed'] })).count).toBe(3);
  });

  it('lets a step in progress or already completed wait on another agent, and unblocks it when that ends', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const parent = await h.client('parent');
    const child = await h.client('child');
    await child.createPlan({ title: 'Child', steps: ['Research', 'Report'] });
    await child.startPlan({});
    await parent.createPlan({ title: 'Parent', steps: ['Integrate', 'Review'] });
    await parent.startPlan({});
    await parent.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    await parent.setStepStatus({ step_id: 'step_2', status: 'completed', result: 'looked fine' });

    const working = await parent.addDependentStep({
      step_id: 'step_1',
      depends_on: [{ agent_id: 'child', step_id: 'step_1' }],
    });
    expect(working).toMatchObject({ status: 'blocked', blocked_by: [{ agent_id: 'child', step_id: 'step_1' }] });
    expect(working.message).toMatch(/^Added 1 dependencies to existing step \(BLOCKED\); step_1 was in_progress/);
    // Upstream counts the dependencies passed in, a repeated one (kept once) included.
    const reviewed = await parent.addDependentStep({
      step_id: 'step_2',
      depends_on: [
        { agent_id: 'child', step_id: 'step_2' },
        { agent_id: 'child', step_id: 'step_2' },
      ],
    });
    expect(reviewed.message).toMatch(/^Added 2 dependencies to existing step \(BLOCKED\)/);
    expect(reviewed.depends_on).toHaveLength(1);
    expect(reviewed).toMatchObject({ status: 'blocked', result: 'looked fine', step: { completed_at: null } });

    await child.completeStepWithOutput({ step_id: 'step_1', output: { found: 3 } });
    await child.setStepStatus({ step_id: 'step_2', status: 'completed', result: 'reported' });
    const plan = await parent.getPlanStatus({});
    expect(plan.steps.map((s) => [s.status, s.received_outputs])).toEqual([
      ['pending', { 'child:step_1': { found: 3 } }],
      ['pending', { 'child:step_2': { status: 'completed', result: 'reported', error: null } }],
    ]);
    const { events } = await parent.getTaskEvents({ agent_id: 'parent', event_types: ['step_unblocked'] });
    expect(events.map((e) => e.source_step_id)).toEqual(['step_1', 'step_2']);
  });

  it('keeps an ended step ended when every dependency attached to it had already ended, and says so', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const parent = await h.client('parent');
    const child = await h.client('child');
    await child.createPlan({ title: 'Child', steps: ['Research'] });
    await child.startPlan({});
    await child.completeStepWithOutput({ step_id: 'step_1', output: { found: 3 } });
    await parent.createPlan({ title: 'Parent', steps: ['Integrate'] });
    await parent.startPlan({});
    await parent.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'merged' });

    const attached = await parent.addDependentStep({
      step_id: 'step_1',
      depends_on: [{ agent_id: 'child', step_id: 'step_1' }],
    });
    expect(attached).toMatchObject({ status: 'completed', received_outputs: { 'child:step_1': { found: 3 } } });
    expect(attached.message).toBe(
      'Added 1 dependencies to existing step; all had already ended, so step_1 keeps its status (completed) with ' +
        'their outputs in received_outputs (step_unblocked announces them as usual).',
    );
    expect((await parent.getPlanStatus({})).steps[0]).toMatchObject({ status: 'completed', result: 'merged' });
  });

  it('drops unknown event types in getTaskEvents instead of refusing the call', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    const reader = await h.client('reader');
    await agent.createPlan({ title: 'P', steps: ['a'] });
    const some = await reader.getTaskEvents({ event_types: ['plan_created', 'no_such_type'] });
    expect(some.events.map((e) => e.event_type)).toEqual(['plan_created']);
    const all = await reader.getTaskEvents({ event_types: ['no_such_type'] });
    expect(all.count).toBeGreaterThan(0);
    expect(all.count).toBe((await reader.getTaskEvents({})).count);
  });

  it('gates validation steps as upstream: evidence or an output, and skipping stays open', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    const created = await agent.createPlan({
      title: 'Gate',
      steps: ['Implement feature', 'Execute Tier 1 validation', 'Deploy', 'Run verification checks'],
    });
    expect(created.steps.map((s) => s.validation_required ?? false)).toEqual([false, true, false, true]);
    expect(created.steps[0]).not.toHaveProperty('validation_required');
    await agent.startPlan({});
    const refused = (await agent.execute('setStepStatus', { step_id: 'step_2', status: 'completed' })) as {
      error: string;
    };
    // jaato's todo plugin (setStepStatus's gate), to the letter.
    const upstream =
      'This is a validation step (validation_required=true). It cannot be marked completed without subagent ' +
      'evidence.\n\nTo complete this step:\n1. Spawn a validator subagent\n2. Use addDependentStep to link this step ' +
      "to the subagent's output\n3. The subagent calls completeStepWithOutput with its results\n4. This step " +
      "auto-unblocks and can then be completed\n\nIf validation is genuinely not needed, use setStepStatus(status='skipped') " +
      'instead.';
    expect(refused.error.startsWith(upstream)).toBe(true);
    // Upstream's gate answer carries these beside the error; execute() keeps them.
    expect(refused).toEqual({
      error: refused.error,
      step_id: 'step_2',
      validation_required: true,
      has_received_outputs: false,
    });
    await agent.setStepStatus({ step_id: 'step_2', status: 'in_progress' });
    const passed = await agent.completeStepWithOutput({ step_id: 'step_2', output: { passed: true, errors: [] } });
    expect(passed.status).toBe('completed');
    expect(await agent.setStepStatus({ step_id: 'step_4', status: 'skipped' })).toMatchObject({ status: 'skipped' });
  });
});
