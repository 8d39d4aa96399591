import type { PlanHubClient } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { expectRefusal } from '../helpers/refusals.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';

/**
 * Upstream reads a null optional argument as left out (jaato's `args.get(...)`, supyagent's `Optional[str] = None`,
 * Triggerfish's `typeof x === "string" ? x : undefined`), and hosts send one: a strict function-calling mode has the
 * model fill every parameter. These calls go out as sent (the SDK's execute() would drop the nulls itself).
 */
describe('a null optional argument reads as left out, in every dialect', () => {
  let h: Harness;
  afterEach(async () => h.close());

  const raw = (client: PlanHubClient, tool: string, args: object) => client.call(tool as never, args as never);

  it('serves seed 000 calls that send null for every optional argument', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const parent = await h.client('parent');
    const sub = await h.client('sub');
    await raw(sub, 'createPlan', { title: 'Research', steps: ['find', 'report'] });
    await raw(sub, 'startPlan', { message: null });
    const plan = await raw(parent, 'createPlan', { title: 'Merge', steps: ['spawn'] });
    await raw(parent, 'startPlan', { message: null });
    expect(await raw(parent, 'getPlanStatus', { plan_id: null, agent_id: null })).toMatchObject({ title: 'Merge' });
    expect(await raw(parent, 'getBlockedSteps', { plan_id: null })).toMatchObject({ count: 0 });
    await raw(parent, 'setStepStatus', { step_id: 'step_1', status: 'in_progress', result: null, error: null });
    await raw(parent, 'addStep', { description: 'check', after_step_id: null });
    const waiting = (await raw(parent, 'addDependentStep', {
      description: 'merge the report',
      depends_on: [{ agent_id: 'sub', step_id: 'step_2', plan_id: null }],
      after_step_id: null,
      provides: null,
      plan_id: null,
    })) as { step_id: string; status: string };
    expect(waiting.status).toBe('blocked');
    await raw(parent, 'subscribeToTasks', {
      event_types: ['step_unblocked'],
      agent_id: null,
      plan_id: null,
      step_id: null,
    });
    await raw(sub, 'completeStepWithOutput', { step_id: 'step_2', output: { report: 'done' }, result: null });
    const events = (await raw(parent, 'getTaskEvents', {
      agent_id: 'parent',
      event_types: null,
      after_event: null,
    })) as { events: Array<{ event_type: string; source_step_id?: string }> };
    expect(events.events.filter((e) => e.event_type === 'step_unblocked')).toEqual([
      expect.objectContaining({ source_step_id: waiting.step_id }),
    ]);
    expect(await raw(parent, 'completePlan', { status: 'completed', summary: null })).toMatchObject({
      status: 'completed',
    });
    // The plan named: it stays readable, so the id given as null did not hide an id that mattered.
    expect(await raw(parent, 'getPlanStatus', { plan_id: (plan as { plan_id: string }).plan_id })).toMatchObject({
      status: 'completed',
    });
  });

  it('still refuses a null required argument in upstream’s words', async () => {
    h = await startHarness('memory');
    const agent = await h.client('main');
    await expectRefusal(
      raw(agent, 'createPlan', { title: null, steps: ['x'] }),
      'INVALID_ARGUMENT',
      /^title is required/,
    );
    await expectRefusal(raw(agent, 'update_plan', { plan_id: null, step_index: 0 }), 'INVALID_ARGUMENT', /plan_id/);
  });

  it('serves seed 002 and 004 calls that send null for optional arguments', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    expect(await raw(agent, 'plan_enter', { goal: 'G', scope: null })).toMatchObject({ status: 'entered' });
    await raw(agent, 'plan_exit', { plan: { summary: 's', approach: 'a', steps: [{ id: 1, description: 'd' }] } });
    expect(
      await raw(agent, 'plan_modify', {
        step_id: 1,
        reason: 'r',
        new_description: 'd2',
        new_files: null,
        new_verification: null,
      }),
    ).toMatchObject({ step_id: 1 });
    await raw(agent, 'plan_step_complete', { step_id: 1, verification_result: 'ok' });
    expect(await raw(agent, 'plan_complete', { summary: 'Done', deviations: null })).toMatchObject({
      status: 'plan_completed',
    });

    const created = (await raw(agent, 'create_plan', {
      title: 'T',
      steps: [{ description: 'a' }],
      working_dir: null,
    })) as {
      plan_id: string;
    };
    expect(await raw(agent, 'get_plan', { plan_id: null, working_dir: null })).toMatchObject({
      plan_id: created.plan_id,
    });
  });
});

/** Upstream tests `if plan_id:`, so an empty plan id is its current (or most recent) plan, not an error. */
describe('an empty optional plan id reads as left out', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('answers getPlanStatus, getBlockedSteps and get_plan for the current plan', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    const { plan_id } = await agent.createPlan({ title: 'Current', steps: ['a'] });
    await agent.startPlan({});
    expect(await agent.call('getPlanStatus', { plan_id: '' })).toMatchObject({ plan_id });
    expect(await agent.call('getBlockedSteps', { plan_id: '' })).toMatchObject({ plan_id, count: 0 });
    expect(await agent.execute('getPlanStatus', { plan_id: '' })).toMatchObject({ plan_id });
    await agent.create_plan({ title: 'Indexed', steps: [{ description: 'x' }] });
    const latest = await agent.get_plan({});
    expect(latest).toMatchObject({ ok: true, title: 'Indexed' });
    expect(await agent.call('get_plan', { plan_id: '' })).toEqual(latest);
  });
});

/** Upstream words a wrong status with Python's f-string, so a non-text value prints as Python prints it. */
describe('seed 001: a todo with a status that is not one', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('names the value as upstream’s Python prints it', async () => {
    h = await startHarness('memory');
    const agent = await h.client('main');
    for (const [status, shown] of [
      [null, 'None'],
      [true, 'True'],
      [{ a: 1 }, "{'a': 1}"],
      [['x'], "['x']"],
      ['done', 'done'],
    ] as const)
      await expectRefusal(
        agent.call('todo', { action: 'create', todos: [{ content: 'x', status, activeForm: 'y' }] }),
        'INVALID_ARGUMENT',
        `Todo 0 has invalid status: ${shown}`,
      );
  });
});

/**
 * jaato's tools use a text argument as given (`args.get(name)`, printed by f-strings) and refuse a required one only
 * when `not value`: a number, list or object where text goes is served there, and a falsy one is "missing".
 */
describe('seed 000: a value that is not text where text goes, as upstream’s Python uses it', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('keeps it as the text Python prints, and reads a falsy one as left out', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    const raw = (tool: string, args: object) => agent.call(tool as never, args as never);
    expect(await raw('createPlan', { title: 5, steps: ['a', 'b', 'c'] })).toMatchObject({ title: '5' });
    await agent.startPlan({});
    expect(
      await raw('setStepStatus', { step_id: 'step_1', status: 'completed', result: { files: 2, ok: true } }),
    ).toMatchObject({ status: 'completed', result: "{'files': 2, 'ok': True}" });
    expect(await raw('setStepStatus', { step_id: 'step_2', status: 'failed', error: ['boom'] })).toMatchObject({
      error: "['boom']",
    });
    // Falsy, as Python's `if not value` reads it: missing, in upstream's words.
    for (const title of [0, false, []])
      await expectRefusal(raw('createPlan', { title, steps: ['x'] }), 'INVALID_ARGUMENT', /^title is required\./);
    await expectRefusal(
      raw('setStepStatus', { step_id: 0, status: 'completed' }),
      'INVALID_ARGUMENT',
      /^step_id is required\./,
    );
    await expectRefusal(
      raw('setStepStatus', { step_id: 'step_3', status: false }),
      'INVALID_ARGUMENT',
      /^status is required\./,
    );
    // A number names a step as its text does: not found, as upstream answers.
    await expectRefusal(raw('setStepStatus', { step_id: 3, status: 'completed' }), undefined, 'Step not found: 3');
    expect(await raw('completePlan', { status: 'completed', summary: { shipped: 1 } })).toMatchObject({
      summary: "{'shipped': 1}",
    });
  });
});

/**
 * Triggerfish reads an optional field of the wrong type as absent (`typeof input.scope === "string" ? … : undefined`,
 * `Array.isArray(x) ? x : []`), so such a call is served there.
 */
describe('seed 002: an optional argument of the wrong type reads as left out', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('serves plan_enter, plan_exit, plan_modify and plan_complete with wrong-typed optional fields', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    const raw = (tool: string, args: object) => agent.call(tool as never, args as never);
    expect(await raw('plan_enter', { goal: 'G', scope: 5 })).toMatchObject({ status: 'entered' });
    const exited = (await raw('plan_exit', {
      plan: {
        summary: 's',
        approach: 'a',
        steps: [{ id: 1, description: 'd', files: 'src/a.ts', verification: 7 }],
        risks: 'none',
        files_to_create: 'src/a.ts',
      },
    })) as { plan: { risks: unknown[]; files_to_create: unknown[]; steps: object[] } };
    expect(exited.plan).toMatchObject({ risks: [], files_to_create: [] });
    expect(Object.keys(exited.plan.steps[0]!)).toEqual(['id', 'description']);
    expect(
      await raw('plan_modify', { step_id: 1, reason: 'r', new_description: 'd2', new_files: 'x.ts' }),
    ).toMatchObject({ step_id: 1 });
    await raw('plan_step_complete', { step_id: 1, verification_result: 'ok' });
    expect(await raw('plan_complete', { summary: 'Done', deviations: 'none' })).toMatchObject({
      status: 'plan_completed',
      deviations: [],
    });
    // A required field of the wrong type is still refused, in upstream's words.
    await expectRefusal(raw('plan_enter', { goal: 5 }), 'INVALID_ARGUMENT');
  });

  it('refuses, never drops, a wrong-typed field of PlanHub’s own that chooses what a decision acts on', async () => {
    h = await startHarness('memory');
    const agent = await h.client('main');
    const raw = (tool: string, args: object) => agent.call(tool as never, args as never);
    await agent.plan_enter({ goal: 'G' });
    await agent.plan_exit({ plan: { summary: 's', approach: 'a', steps: [{ id: 1, description: 'd' }] } });
    await agent.plan_approve({});
    await agent.plan_modify({ step_id: 1, reason: 'r', new_description: 'changed' });
    // Read as absent, "false" would approve the waiting modification: the opposite of what was asked.
    await expectRefusal(raw('plan_approve', { modification: 'false' }), 'INVALID_ARGUMENT', /modification/);
    await expectRefusal(raw('plan_approve', { plan_id: 123 }), 'INVALID_ARGUMENT', /plan_id/);
    await expectRefusal(raw('plan_reject', { agent_id: 7, reason: 'no' }), 'INVALID_ARGUMENT', /agent_id/);
    expect(await agent.plan_status({})).toMatchObject({ mode: 'executing', pending_modification: { step_id: 1 } });
    expect((await agent.getPlanStatus({})).steps[0]?.description).toBe('d');
  });
});
