import { PlanHubError } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

describe.each(STORE_KINDS)('seed 000 core tools through the SDK (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('runs the seed workflow: create, approve, report, complete', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const created = await agent.createPlan({
      title: 'Refactor auth module',
      steps: [
        'Review current auth implementation',
        'Extract token validation to separate module',
        'Add unit tests for new module',
        'Update imports in dependent files',
      ],
    });
    expect(created).toMatchObject({
      title: 'Refactor auth module',
      status: 'pending',
      message: 'Plan created. Call startPlan to request approval.',
    });
    expect(created.plan_id).toMatch(/^[a-z0-9]{8}$/);
    expect(created.steps.map((s) => [s.id, s.step_id, s.status])).toEqual([
      ['step_1', 'step_1', 'pending'],
      ['step_2', 'step_2', 'pending'],
      ['step_3', 'step_3', 'pending'],
      ['step_4', 'step_4', 'pending'],
    ]);

    await expect(agent.setStepStatus({ step_id: 'step_1', status: 'completed' })).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
    });

    const user = await h.client('alice', { role: 'user' });
    const starting = agent.startPlan({ message: 'Ready to proceed?' });
    await expect.poll(async () => (await user.getPlanStatus({ agent_id: 'main' })).status).toBe('awaiting_approval');
    await user.plan_approve({ agent_id: 'main' });
    expect(await starting).toMatchObject({ plan_id: created.plan_id, status: 'in_progress' });

    await agent.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'Found 3 auth-related files' });
    const step2 = await agent.setStepStatus({ step_id: 'step_2', status: 'in_progress' });
    expect(step2.instruction).toMatch(/^Step is now in progress\. Proceed immediately with: Extract token/);
    const status = await agent.getPlanStatus({});
    expect(status.progress).toMatchObject({ completed: 1, total: 4, percentage: 25, in_progress: 1, pending: 2 });
    await agent.setStepStatus({ step_id: 'step_2', status: 'completed' });
    await agent.setStepStatus({ step_id: 'step_3', status: 'skipped', result: 'Tests already exist' });
    const warned = await agent.setStepStatus({
      step_id: 'step_4',
      status: 'completed',
      result: 'Unable to update 2 of 5 imports',
    });
    expect(warned.warning).toMatch(/failed/);
    expect(warned.instruction).toBe('All steps completed. Call completePlan to finalize.');
    const done = await agent.completePlan({ status: 'completed', summary: 'Refactoring done' });
    expect(done).toMatchObject({ status: 'completed', progress: { completed: 3, skipped: 1, total: 4 } });
  });

  it('answers startPlan with the rejection and its reason', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    const { plan_id } = await agent.createPlan({ title: 'T', steps: ['a'] });
    const user = await h.client('alice', { role: 'user' });
    const starting = agent.startPlan({});
    await expect.poll(async () => (await user.getPlanStatus({ plan_id })).status).toBe('awaiting_approval');
    await user.plan_reject({ plan_id, reason: 'too risky' });
    expect(await starting).toMatchObject({ status: 'rejected', reason: 'too risky' });
  });

  it('refuses a second plan while one is started, and lets the owner approve its own plan', async () => {
    h = await startHarness(store);
    const agent = await h.client('main');
    await agent.createPlan({ title: 'First', steps: ['a'] });
    const waiting = agent.startPlan({});
    await expect.poll(async () => (await agent.getPlanStatus({})).status).toBe('awaiting_approval');
    await agent.plan_approve({});
    await waiting;
    const err = await agent.createPlan({ title: 'Second', steps: ['b'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlanHubError);
    expect(err).toMatchObject({ code: 'FAILED_PRECONDITION', retryable: false });
    expect((err as Error).message).toMatch(/^An active plan already exists: 'First'.*Use addStep/s);
  });

  it('starts at once under the auto policy and lists tools with JSON Schemas', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await agent.createPlan({ title: 'T', steps: ['a'] });
    expect(await agent.startPlan({})).toMatchObject({ status: 'in_progress' });
    const tools = await agent.listTools({});
    const create = tools.find((t) => t.name === 'createPlan');
    expect(create?.input_schema).toMatchObject({ type: 'object', required: ['title', 'steps'] });
  });

  it('keeps dashboards read-only', async () => {
    h = await startHarness(store);
    const dash = await h.client('board', { role: 'dashboard' });
    await expect(dash.createPlan({ title: 'T', steps: ['a'] })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
  });
});
