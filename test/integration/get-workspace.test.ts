import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';

describe('getWorkspace', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('shows every agent with its plans, progress, step statuses and pending approvals', async () => {
    h = await startHarness('memory');
    const main = await h.client('main');
    const sub = await h.client('implementer');
    await main.createPlan({ title: 'Coordinate', steps: ['Spawn', 'Review'] });
    await sub.createPlan({ title: 'Implement', steps: ['Write code', 'Run tests'] });
    await sub.startPlan({ wait: false, message: 'Ready?' });
    await sub.plan_approve({});
    await sub.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'done' });
    await main.startPlan({ wait: false, message: 'Go?' });

    const board = await h.client('board', { role: 'dashboard' });
    const overview = await board.getWorkspace({});
    expect(overview.workspace).toBe('ws');
    expect(overview.last_event_id).toMatch(/^\d+-\d+$/);
    expect(overview.agents.map((a) => a.agent_id)).toEqual(['main', 'implementer']);
    const [mainView, subView] = overview.agents;
    expect(mainView).toMatchObject({
      pending_approvals: [{ agent_id: 'main', title: 'Coordinate', message: 'Go?' }],
      plans: [{ title: 'Coordinate', status: 'awaiting_approval' }],
    });
    expect(subView?.current_plan_id).toBe(subView?.plans[0]?.plan_id);
    expect(subView?.plans[0]).toMatchObject({
      status: 'in_progress',
      progress: { completed: 1, total: 2, percentage: 50 },
      steps: [
        { id: 'step_1', status: 'completed', result: 'done' },
        { id: 'step_2', status: 'pending' },
      ],
    });
    expect(subView?.pending_approvals).toEqual([]);

    const one = await board.getWorkspace({ agent_id: 'implementer' });
    expect(one.agents.map((a) => a.agent_id)).toEqual(['implementer']);
  });

  it('keeps unfinished plans and only the most recent finished ones', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    for (let i = 1; i <= 3; i++) {
      await agent.createPlan({ title: `Plan ${i}`, steps: ['only'] });
      await agent.startPlan({});
      await agent.completePlan({ status: 'failed' });
    }
    await agent.createPlan({ title: 'Open', steps: ['only'] });
    const overview = await agent.getWorkspace({ plans_per_agent: 1 });
    expect(overview.agents[0]?.plans.map((p) => p.title)).toEqual(['Open', 'Plan 3']);
  });

  it('answers an empty workspace with no agents and no event position', async () => {
    h = await startHarness('memory');
    const board = await h.client('board', { role: 'dashboard' });
    expect(await board.getWorkspace({})).toMatchObject({ agents: [], tasks: [], last_event_id: null });
  });

  it("shows todos, owned tasks, 002's mode and a pending plan_modify, including agents without a plan", async () => {
    h = await startHarness('memory');
    const planner = await h.client('planner');
    const lister = await h.client('lister');
    const tasker = await h.client('tasker');
    const user = await h.client('alice', { role: 'user' });
    await planner.plan_enter({ goal: 'Add auth' });
    const { plan_id } = await planner.plan_exit({
      plan: {
        summary: 'Auth',
        approach: 'Middleware',
        steps: [
          { id: 1, description: 'Write middleware' },
          { id: 2, description: 'Protect routes' },
        ],
      },
    });
    await user.plan_approve({ plan_id });
    await planner.plan_modify({ step_id: 2, reason: 'Two route files', new_description: 'Protect both route files' });
    await lister.todo({
      action: 'create',
      todos: [{ content: 'Read code', activeForm: 'Reading code', status: 'in_progress' }],
    });
    await tasker.todo_write({
      todos: [{ id: 'a', content: 'Ship', status: 'pending', priority: 'high' }],
    });
    await tasker.TaskCreate({ subject: 'Fix login', description: 'It breaks' });
    await tasker.TaskCreate({ subject: 'Release', description: 'After the fix' });
    await tasker.TaskUpdate({ taskId: '2', owner: 'tasker', addBlockedBy: ['1'] });

    const overview = await user.getWorkspace({});
    const byId = Object.fromEntries(overview.agents.map((a) => [a.agent_id, a]));
    expect(Object.keys(byId).sort()).toEqual(['lister', 'planner', 'tasker']);
    expect(byId.planner).toMatchObject({
      mode: 'executing',
      pending_modifications: [
        {
          plan_id,
          agent_id: 'planner',
          step_id: 2,
          reason: 'Two route files',
          new_description: 'Protect both route files',
        },
      ],
    });
    expect(byId.lister?.todos).toEqual([{ content: 'Read code', status: 'in_progress', active_form: 'Reading code' }]);
    expect(byId.tasker?.todos).toEqual([{ content: 'Ship', status: 'pending', priority: 'high' }]);
    expect(byId.tasker?.tasks).toEqual([
      { id: '2', subject: 'Release', status: 'pending', owner: 'tasker', blocked_by: ['1'] },
    ]);
    expect(overview.tasks.map((t) => t.id)).toEqual(['1', '2']);
  });
});
