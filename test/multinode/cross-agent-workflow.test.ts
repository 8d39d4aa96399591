import type { EventEnvelope, PlanHubClient } from '@planhub/client-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_BACKENDS, startCluster, type Cluster } from '../helpers/cluster.ts';
import { recordEvents, startedPlan } from '../helpers/event-log.ts';

/**
 * Seed 000's cross-agent workflow with every agent on a different one of three real server processes sharing one
 * Redis. Each test works in its own workspace of the one cluster.
 */
describe.each(REDIS_BACKENDS)('cross-agent coordination across three server processes (%s)', (backend) => {
  let cluster: Cluster;
  let workspaceNo = 0;
  beforeAll(async () => {
    cluster = await startCluster({ backend, env: { PLANHUB_APPROVAL_POLICY: 'auto' } });
  });
  afterAll(async () => cluster?.close());
  const workspace = () => `w${++workspaceNo}`;

  it('runs the seed parent/subagent workflow with parent and subagent on different nodes', async () => {
    const ws = workspace();
    const parent = await cluster.client('parent', { node: 0, workspace: ws });
    const implementer = await cluster.client('implementer', { node: 1, workspace: ws });
    const dashboard = await cluster.client('board', { node: 2, workspace: ws, role: 'dashboard' });
    const parentLog = recordEvents(parent);
    const boardLog = recordEvents(dashboard);
    await dashboard.subscribeToTasks({
      event_types: ['plan_created', 'step_completed', 'step_blocked', 'step_unblocked'],
    });
    await startedPlan(parent, 'Ship feature', ['Spawn the implementer']);

    // 1. Subscribe before spawning the subagent.
    await parent.subscribeToTasks({ event_types: ['plan_created', 'step_completed', 'step_unblocked'] });
    // 2. The subagent creates its plan (on another node).
    const subPlan = await implementer.createPlan({ title: 'Implement', steps: ['Write code', 'final step'] });
    // 3. On plan_created, the parent adds the dependent step.
    const created = await parentLog.next((e) => e.event_type === 'plan_created');
    const finalStep = (created.payload.steps as { step_id: string; description: string }[]).find(
      (s) => s.description === 'final step',
    );
    expect(finalStep?.step_id).toBe('step_2');
    const dep = await parent.addDependentStep({
      description: 'Review implementation results',
      depends_on: [{ agent_id: 'implementer', step_id: finalStep?.step_id ?? '' }],
    });
    expect(dep).toMatchObject({
      status: 'blocked',
      message: expect.stringMatching(/1 dependencies \(BLOCKED\)/) as string,
    });

    // 4. The subagent completes with output.
    await implementer.startPlan({});
    await implementer.setStepStatus({ step_id: 'step_1', status: 'completed' });
    const output = { passed: true, results: ['file1.py created', 'tests pass'], errors: [] };
    await implementer.completeStepWithOutput({ step_id: 'step_2', output, result: 'Implementation completed' });

    // 5. The parent's step unblocks by itself, with the output.
    const unblocked = await parentLog.next((e) => e.event_type === 'step_unblocked');
    expect(unblocked).toMatchObject({
      source_agent: 'parent',
      source_step_id: dep.step_id,
      payload: {
        received_outputs: ['implementer:step_2'],
        outputs: { 'implementer:step_2': output },
        unblocked_by: { agent_id: 'implementer', step_id: 'step_2' },
      },
    });
    const status = await parent.getPlanStatus({});
    expect(status.steps.find((s) => s.step_id === dep.step_id)).toMatchObject({
      status: 'pending',
      received_outputs: { 'implementer:step_2': output },
    });
    expect(status.received_outputs).toEqual({ 'implementer:step_2': output });
    expect(parentLog.events.filter((e) => e.event_type === 'step_completed').map((e) => e.source_step_id)).toEqual([
      'step_1',
      'step_2',
    ]);

    // The dashboard on the third node saw the whole story, in log order.
    await boardLog.next((e) => e.event_type === 'step_unblocked');
    expect(boardLog.events.map((e) => `${e.source_agent}:${e.event_type}`)).toEqual([
      'parent:plan_created',
      'implementer:plan_created',
      'parent:step_blocked',
      'implementer:step_completed',
      'implementer:step_completed',
      'parent:step_unblocked',
    ]);
    expect(subPlan.plan_id).toBe(dep.blocked_by[0]?.plan_id);
  });

  it('resolves failed and skipped dependencies on other nodes with their outcome recorded', async () => {
    const ws = workspace();
    const parent = await cluster.client('parent', { node: 0, workspace: ws });
    const failing = await cluster.client('failing', { node: 1, workspace: ws });
    const skipping = await cluster.client('skipping', { node: 2, workspace: ws });
    await startedPlan(parent, 'P', ['first']);
    await startedPlan(failing, 'F', ['try']);
    await startedPlan(skipping, 'S', ['maybe']);
    const dep = await parent.addDependentStep({
      description: 'Decide',
      depends_on: [
        { agent_id: 'failing', step_id: 'step_1' },
        { agent_id: 'skipping', step_id: 'step_1' },
      ],
    });
    await failing.setStepStatus({ step_id: 'step_1', status: 'failed', error: 'Could not compile' });
    await skipping.completePlan({ status: 'cancelled', summary: 'not needed' });
    const step = (await parent.getPlanStatus({})).steps.find((s) => s.step_id === dep.step_id);
    expect(step).toMatchObject({
      status: 'pending',
      blocked_by: [],
      received_outputs: {
        'failing:step_1': { status: 'failed', result: null, error: 'Could not compile' },
        'skipping:step_1': { status: 'skipped', result: 'plan cancelled', error: null },
      },
    });
  });

  it('refuses a dependency cycle across agents on different nodes', async () => {
    const ws = workspace();
    const agents = await Promise.all(['a', 'b', 'c'].map((id, node) => cluster.client(id, { node, workspace: ws })));
    for (const agent of agents) await startedPlan(agent, 'X', ['one']);
    const [a, b, c] = agents as [PlanHubClient, PlanHubClient, PlanHubClient];
    await a.addDependentStep({ step_id: 'step_1', depends_on: [{ agent_id: 'b', step_id: 'step_1' }] });
    await b.addDependentStep({ step_id: 'step_1', depends_on: [{ agent_id: 'c', step_id: 'step_1' }] });
    await expect(
      c.addDependentStep({ step_id: 'step_1', depends_on: [{ agent_id: 'a', step_id: 'step_1' }] }),
    ).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringMatching(/cycle/) as string });
    expect((await c.getPlanStatus({})).steps[0]?.status).toBe('pending');
  });

  it('keeps subscriptions per agent across nodes and lets an agent remove only its own', async () => {
    const ws = workspace();
    const a0 = await cluster.client('a', { node: 0, workspace: ws });
    const b1 = await cluster.client('b', { node: 1, workspace: ws });
    const mine = await a0.subscribeToTasks({ event_types: ['step_failed'] });
    const theirs = await b1.subscribeToTasks({ event_types: ['plan_created'] });
    // The same agent on another node sees (and renews) the same subscription.
    const a2 = await cluster.client('a', { node: 2, workspace: ws });
    expect((await a2.listSubscriptions({})).subscriptions.map((s) => s.subscription_id)).toEqual([
      mine.subscription_id,
    ]);
    expect((await a2.subscribeToTasks({ event_types: ['step_failed'] })).subscription_id).toBe(mine.subscription_id);
    expect(await a2.unsubscribe({ subscription_id: theirs.subscription_id })).toMatchObject({
      success: false,
      removed: 0,
    });
    expect(await b1.listSubscriptions({})).toMatchObject({ count: 1 });
    expect(await a2.unsubscribe({ subscription_id: mine.subscription_id })).toMatchObject({ removed: 1 });
    expect(await a0.listSubscriptions({})).toMatchObject({ count: 0 });
  });

  it('answers a retried mutating call on another node with the first answer, applied once', async () => {
    const ws = workspace();
    const on0 = await cluster.client('agent', { node: 0, workspace: ws });
    const on1 = await cluster.client('agent', { node: 1, workspace: ws });
    const on2 = await cluster.client('agent', { node: 2, workspace: ws });
    await startedPlan(on0, 'P', ['a']);
    const requestId = 'retry-of-add-step';
    const first = await on0.addStep({ description: 'once' }, { requestId });
    const retries = await Promise.all([
      on1.addStep({ description: 'once' }, { requestId }),
      on2.addStep({ description: 'once' }, { requestId }),
    ]);
    expect(retries).toEqual([first, first]);
    const output = { v: 1 };
    const done = await on1.completeStepWithOutput({ step_id: 'step_1', output }, { requestId: 'complete-1' });
    expect(await on2.completeStepWithOutput({ step_id: 'step_1', output }, { requestId: 'complete-1' })).toEqual(done);
    const plan = await on2.getPlanStatus({});
    expect(plan.steps.map((s) => [s.step_id, s.status])).toEqual([
      ['step_1', 'completed'],
      ['step_2', 'pending'],
    ]);
    const completions = await on2.getTaskEvents({ event_types: ['step_completed', 'step_added'], after_event: '0-0' });
    expect(completions.events.map((e: EventEnvelope) => e.event_type)).toEqual(['step_added', 'step_completed']);
  });
});
