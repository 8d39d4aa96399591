import { compareEventIds, isPresenceEvent, renderPlanText } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/** One core under five dialects: what one dialect writes, the others read (and the renderers draw). */
describe.each(STORE_KINDS)('dialects share one core (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('shows a create_plan plan to getPlanStatus and renders it with the plan command text', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const { plan_id } = await agent.create_plan({
      title: 'Deploy to production',
      steps: [{ description: 'Run test suite' }, { description: 'Build Docker image' }, { description: 'Deploy' }],
    });
    await agent.update_plan({ plan_id, step_index: 0, notes: 'All 42 tests passed' });
    await agent.update_plan({ plan_id, step_index: 1, status: 'in_progress' });

    const view = await agent.getPlanStatus({});
    expect(view).toMatchObject({
      plan_id,
      agent_id: 'main',
      status: 'in_progress',
      progress: { completed: 1, total: 3, in_progress: 1, pending: 1 },
    });
    expect(view.steps.map((s) => [s.step_id, s.status])).toEqual([
      ['step_1', 'completed'],
      ['step_2', 'in_progress'],
      ['step_3', 'pending'],
    ]);
    expect(view.steps[0]).toMatchObject({ notes: 'All 42 tests passed' });
    expect(renderPlanText(view)).toBe(
      [
        'Current Plan: Deploy to production',
        'Status: in_progress',
        '',
        'Steps:',
        '  [x] step_1: Run test suite',
        '  [>] step_2: Build Docker image',
        '  [ ] step_3: Deploy',
        '',
        'Progress: 1/3 (33.3%)',
      ].join('\n'),
    );
    // 000 tools act on it as the agent's current plan.
    await agent.setStepStatus({ step_id: 'step_2', status: 'completed', result: 'image abc' });
    expect((await agent.get_plan({ plan_id })).steps[1]).toMatchObject({ status: 'completed', notes: 'image abc' });
  });

  it('reads a seed-000 plan with get_plan, by index, with results as notes', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    const { plan_id } = await agent.createPlan({ title: 'Refactor auth', steps: ['Review', 'Extract', 'Test'] });
    await agent.startPlan({});
    await agent.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'Found 3 files' });
    await agent.setStepStatus({ step_id: 'step_2', status: 'failed', error: 'Circular import' });
    expect(await agent.get_plan({})).toMatchObject({
      ok: true,
      plan_id,
      title: 'Refactor auth',
      status: 'in_progress',
      steps: [
        { index: 0, description: 'Review', status: 'completed', notes: 'Found 3 files' },
        { index: 1, description: 'Extract', status: 'failed', notes: 'Circular import' },
        { index: 2, description: 'Test', status: 'pending', notes: '' },
      ],
      completed_count: 1,
      total_count: 3,
    });
    expect(await agent.update_plan({ plan_id, step_index: 2, status: 'skipped' })).toMatchObject({
      step_description: 'Test',
      plan_status: 'in_progress',
    });
  });

  it("unblocks another agent's step when update_plan completes the 004 step it waits on", async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const worker = await h.client('worker');
    const parent = await h.client('parent');
    const { plan_id } = await worker.create_plan({
      title: 'Build',
      steps: [{ description: 'Compile' }, { description: 'Package' }],
    });
    await parent.createPlan({ title: 'Release', steps: ['Prepare notes'] });
    await parent.startPlan({});
    const dep = await parent.addDependentStep({
      description: 'Publish the package',
      depends_on: [{ agent_id: 'worker', step_id: 'step_2' }],
    });
    expect(dep).toMatchObject({ status: 'blocked' });
    await worker.update_plan({ plan_id, step_index: 0 });
    expect((await parent.getPlanStatus({})).steps[1]).toMatchObject({ status: 'blocked' });
    expect(await worker.update_plan({ plan_id, step_index: 1, notes: 'pkg-1.0.tgz' })).toMatchObject({
      plan_status: 'completed',
    });
    const step = (await parent.getPlanStatus({})).steps[1];
    expect(step).toMatchObject({ status: 'pending', blocked_by: [] });
    expect(Object.keys(step?.received_outputs ?? {})).toContain('worker:step_2');
    const log = await h.server.services.store.readEvents('ws', { count: 100 });
    expect(log.filter((e) => e.event_type === 'step_unblocked').map((e) => e.source_agent)).toEqual(['parent']);
  });

  it('puts one event stream under every dialect, with ids in log order', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    await agent.todo({ action: 'create', todos: [{ content: 'A', activeForm: 'Doing A', status: 'pending' }] });
    await agent.TaskCreate({ subject: 'Shared task', description: '' });
    await agent.create_plan({ title: 'P', steps: [{ description: 'x' }] });
    const log = (await h.server.services.store.readEvents('ws', { count: 100 })).filter(
      (e) => !isPresenceEvent(e.event_type),
    );
    expect(log.map((e) => e.event_type)).toEqual(['todos_updated', 'task_created', 'plan_created', 'plan_started']);
    for (let i = 1; i < log.length; i++)
      expect(compareEventIds(log[i]?.event_id ?? '', log[i - 1]?.event_id ?? '')).toBeGreaterThan(0);
  });

  it('shows 001 todos and 003 tasks in the workspace overview', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    await agent.todo({ action: 'create', todos: [{ content: 'A', activeForm: 'Doing A', status: 'in_progress' }] });
    await agent.TaskCreate({ subject: 'Shared task', description: '' });
    await agent.TaskUpdate({ taskId: '1', owner: 'main' });
    const overview = await agent.getWorkspace({});
    expect(overview.tasks).toEqual([
      { id: '1', subject: 'Shared task', status: 'pending', owner: 'main', blocked_by: [] },
    ]);
    const me = overview.agents.find((a) => a.agent_id === 'main');
    expect(me?.todos).toEqual([{ content: 'A', status: 'in_progress', active_form: 'Doing A' }]);
    expect(me?.tasks.map((t) => t.id)).toEqual(['1']);
  });
});
