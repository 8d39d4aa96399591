import type { PlanHubClient } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { refusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/** A call exactly as a host that is not the SDK sends it: nulls and empty strings reach the server as they are. */
const rawCall = (agent: PlanHubClient, tool: string, args: unknown) =>
  (agent.call as (tool: string, args: unknown) => Promise<unknown>)(tool, args);

/** Upstream's own scenario tests for seed 000, re-run against PlanHub through the wire and through execute(). */
describe.each(STORE_KINDS)("seed 000 passes upstream's own scenario tests (%s store)", (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('names the plan status by its approval stage: pending when created, in_progress once started', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    // Upstream answers "active" for every unfinished plan and keeps "started" apart; PlanHub's status is the
    // stage of its approval lifecycle (pending, awaiting_approval, in_progress), as the seed shows it.
    const created = await agent.execute('createPlan', { title: 'Deploy Feature', steps: ['Run tests', 'Build'] });
    expect(created).toMatchObject({ status: 'pending', progress: { total: 2, pending: 2 } });
    await agent.startPlan({});
    expect(await agent.execute('getPlanStatus', {})).toMatchObject({ status: 'in_progress' });
  });

  it('ends a plan as failed after one step completed and one failed', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await agent.createPlan({ title: 'Flaky', steps: ['Step 1', 'Step 2'] });
    await agent.startPlan({});
    await agent.setStepStatus({ step_id: 'step_1', status: 'completed' });
    const failed = await agent.execute('setStepStatus', {
      step_id: 'step_2',
      status: 'failed',
      error: 'Network timeout',
    });
    expect(failed).toMatchObject({ step_id: 'step_2', status: 'failed', error: 'Network timeout' });
    const ended = await agent.execute('completePlan', { status: 'failed' });
    expect(ended).toMatchObject({ status: 'failed', progress: { completed: 1, failed: 1, total: 2 } });
    expect(ended).not.toHaveProperty('error');
    expect(await agent.getTaskEvents({ agent_id: 'main', event_types: ['plan_failed'] })).toMatchObject({
      count: 1,
      events: [{ payload: { progress: { completed: 1, failed: 1 } } }],
    });
  });

  it("refuses addStep before startPlan in upstream's words", async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await agent.createPlan({ title: 'Not yet', steps: ['a'] });
    await expect(agent.addStep({ description: 'more' })).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
    const refused = (await agent.execute('addStep', { description: 'more' })) as { error: string };
    expect(refused.error).toMatch(/^Plan not started\. Call startPlan first to confirm the plan\./);
    expect((await agent.getPlanStatus({})).steps).toHaveLength(1);
  });

  it("counts two completed, one failed, one skipped and one pending of five as upstream's 40 percent", async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await agent.createPlan({ title: 'Five', steps: ['a', 'b', 'c', 'd', 'e'] });
    await agent.startPlan({});
    await agent.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await agent.setStepStatus({ step_id: 'step_2', status: 'completed' });
    await agent.setStepStatus({ step_id: 'step_3', status: 'failed', error: 'broke' });
    await agent.setStepStatus({ step_id: 'step_4', status: 'skipped', result: 'not needed' });
    const upstream = { total: 5, completed: 2, failed: 1, skipped: 1, in_progress: 0, pending: 1, percent: 40.0 };
    const status = (await agent.execute('getPlanStatus', {})) as { progress: object };
    expect(status.progress).toEqual({ ...upstream, blocked: 0, percentage: 40 });
    expect((await agent.getPlanStatus({})).progress).toMatchObject(upstream);
  });

  it('flags exactly the steps that read as validation steps', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    const flagged = [
      'Run tier-2 checks',
      'Tier 3: pattern compliance',
      'Validate output against standards',
      'Run verification checks',
      'execute validation on output',
    ];
    const plain = ['Create a valid configuration', 'Run tests', 'Check configuration is valid', 'tier', 'a valid tier'];
    const created = (await agent.execute('createPlan', { title: 'Gate', steps: [...flagged, ...plain] })) as {
      steps: Record<string, unknown>[];
    };
    expect(created.steps.slice(0, 5).map((s) => s.validation_required)).toEqual([true, true, true, true, true]);
    for (const step of created.steps.slice(5)) expect(step).not.toHaveProperty('validation_required');
  });

  it('refuses a long-poll that names nothing to wait for, and answers a narrowed one', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const main = await h.client('main');
    const sub = await h.client('sub');
    await sub.createPlan({ title: 'Sub work', steps: ['a'] });

    const refused = (await main.execute('getTaskEvents', { timeout: 5 })) as { error: string };
    expect(refused.error).toMatch(
      /^timeout requires at least one of: agent_id, event_types, or after_event\. {2}Without any narrowing the wait returns on the first event from any agent, making the timeout ineffective\./,
    );
    await expect(main.getTaskEvents({ timeout: 5 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await main.getTaskEvents({ timeout: 5, event_types: [] }).catch((e: unknown) => e)).toMatchObject({
      code: 'INVALID_ARGUMENT',
    });

    const existing = await main.execute('getTaskEvents', { agent_id: 'sub', timeout: 5 });
    expect(existing).toMatchObject({ count: 1, events: [{ event_type: 'plan_created', source_agent: 'sub' }] });
    expect(await main.getTaskEvents({ agent_id: 'nobody', timeout: 0.3 })).toMatchObject({ events: [], count: 0 });
    expect(await main.getTaskEvents({ plan_id: 'nothing1', timeout: 0.3 })).toMatchObject({ count: 0 });
    // Without a timeout nothing waits, so nothing needs narrowing.
    expect((await main.getTaskEvents({})).count).toBe(1);
    // Out-of-range timeouts are clamped to [0, 30] as upstream does, not refused: 60 waits like 30 (an event is
    // already there, so it answers at once), and a negative one does not wait, so it needs no narrowing.
    expect(await main.execute('getTaskEvents', { agent_id: 'sub', timeout: 60 })).toMatchObject({ count: 1 });
    expect(await main.execute('getTaskEvents', { agent_id: 'sub', timeout: 45 })).toMatchObject({ count: 1 });
    expect(await main.getTaskEvents({ timeout: -5 })).toMatchObject({ count: 1 });
    expect(await main.getTaskEvents({ timeout: -1 })).toMatchObject({ count: 1 });
    // Upstream reads the timeout with float(): what is not a number waits 0 s (so needs no narrowing), and a string
    // holding a number waits that long.
    for (const timeout of ['soon', null, {}, [5]])
      expect(await rawCall(main, 'getTaskEvents', { timeout }), JSON.stringify(timeout)).toMatchObject({ count: 1 });
    expect(await refusal(rawCall(main, 'getTaskEvents', { timeout: '5' }))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/^timeout requires at least one of/) as string,
    });
    expect(await rawCall(main, 'getTaskEvents', { agent_id: 'nobody', timeout: '0.3' })).toMatchObject({ count: 0 });
  });

  it("answers a missing, null or empty argument with upstream's '<field> is required' first", async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await agent.createPlan({ title: 'P', steps: ['a'] });
    await agent.startPlan({});
    const dep = [{ agent_id: 'w', step_id: 's' }];
    // Upstream tests these with Python's `if not value` (output with `is None`): None and "" are missing there.
    const cases: [tool: string, args: Record<string, unknown>, upstream: string][] = [
      ['createPlan', { title: '', steps: ['a'] }, 'title is required'],
      ['createPlan', { title: null, steps: ['a'] }, 'title is required'],
      ['setStepStatus', { step_id: 'step_1' }, 'status is required'],
      ['setStepStatus', { step_id: 'step_1', status: null }, 'status is required'],
      ['setStepStatus', { step_id: 'step_1', status: '' }, 'status is required'],
      ['setStepStatus', { step_id: '', status: 'completed' }, 'step_id is required'],
      ['setStepStatus', { step_id: null, status: 'completed' }, 'step_id is required'],
      ['setStepStatus', {}, 'step_id is required'],
      ['completePlan', {}, 'status is required'],
      ['completePlan', { status: null }, 'status is required'],
      ['completePlan', { status: '' }, 'status is required'],
      ['addStep', { description: '' }, 'description is required'],
      ['addStep', { description: null }, 'description is required'],
      ['addDependentStep', { depends_on: dep }, 'step_id is required'],
      ['addDependentStep', {}, 'step_id is required'],
      ['addDependentStep', { step_id: '', depends_on: dep }, 'step_id is required'],
      ['addDependentStep', { description: '', depends_on: dep }, 'description is required'],
      ['addDependentStep', { step_id: 'step_1', depends_on: null }, 'depends_on is required and must not be empty'],
      ['completeStepWithOutput', { step_id: 'step_1', output: null }, 'output is required'],
      ['completeStepWithOutput', { step_id: '', output: {} }, 'step_id is required'],
      ['unsubscribe', { subscription_id: '' }, 'subscription_id is required'],
      ['unsubscribe', { subscription_id: null }, 'subscription_id is required'],
      ['subscribeToTasks', { event_types: null }, 'event_types is required'],
    ];
    for (const [tool, args, upstream] of cases) {
      const { code, message } = await refusal(rawCall(agent, tool, args));
      expect([code, message.slice(0, upstream.length)], `${tool} ${JSON.stringify(args)}: ${message}`).toEqual([
        'INVALID_ARGUMENT',
        upstream,
      ]);
    }
    // PlanHub's guidance follows upstream's words: which form creates a step.
    expect((await refusal(rawCall(agent, 'addDependentStep', { depends_on: dep }))).message).toMatch(
      /^step_id is required \(the step of yours that should wait\), or pass description instead to create a new step/,
    );
    // An empty output is an output, as upstream's `is None` check has it.
    expect(await agent.execute('completeStepWithOutput', { step_id: 'step_1', output: {} })).toMatchObject({
      status: 'completed',
      output: {},
    });
  });

  it('takes steps that are empty strings, as upstream checks only that each step is a string', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    const created = await agent.execute('createPlan', { title: 'Loose', steps: ['', 'Build', '  '] });
    expect(created).toMatchObject({ progress: { total: 3 } });
    expect((await agent.getPlanStatus({})).steps.map((s) => s.description)).toEqual(['', 'Build', '']);
    // Each step must still be a string, within the description cap.
    expect(await agent.execute('createPlan', { title: 'T', steps: [1] })).toMatchObject({
      error: expect.stringMatching(/^all steps must be strings/) as string,
    });
    expect(await agent.execute('createPlan', { title: 'T', steps: ['x'.repeat(5_000)] })).toMatchObject({
      error: expect.stringMatching(/^steps is too long \(at most 4000 characters\)/) as string,
    });
  });

  it("answers startPlan with the caller's message, else upstream's sentence, then PlanHub's guidance", async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await agent.createPlan({ title: 'Plain', steps: ['a'] });
    expect((await agent.startPlan({})).message).toBe(
      'Plan confirmed. You may proceed with execution. Start with the first step and report each outcome with ' +
        'setStepStatus.',
    );
    await agent.completePlan({ status: 'cancelled' });
    await agent.createPlan({ title: 'Explained', steps: ['a'] });
    const started = (await agent.execute('startPlan', { message: 'Approved by the team lead' })) as {
      message: string;
    };
    expect(started.message).toMatch(/^Approved by the team lead\. Start with the first step/);
  });
});
