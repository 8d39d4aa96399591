import { afterEach, describe, expect, it } from 'vitest';
import { recordEvents, startedPlan } from '../helpers/event-log.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { storedWaiters } from '../helpers/stored-waiters.ts';

/**
 * Seed 000's dependency tools (addDependentStep, completeStepWithOutput, getBlockedSteps) on one in-process node, on
 * both stores; cross-agent-events.test.ts covers subscriptions and events, test/multinode races them across processes.
 */
describe.each(STORE_KINDS)('seed 000 cross-agent tools (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());
  const start = async () => (h = await startHarness(store, { approvalPolicy: 'auto' }));

  it('runs the seed parent/subagent workflow: the parent step unblocks with the output', async () => {
    await start();
    const parent = await h.client('parent');
    const sub = await h.client('implementer');
    const log = recordEvents(parent);
    await startedPlan(parent, 'Coordinate', ['Spawn implementer']);
    const subscribed = await parent.subscribeToTasks({
      event_types: ['plan_created', 'step_completed', 'step_unblocked'],
    });
    expect(subscribed).toMatchObject({ agent_id: '*', replayed: 0 });
    expect(subscribed.subscription_id).toMatch(/^sub_/);

    const subPlan = await sub.createPlan({ title: 'Implement', steps: ['Write code', 'Final step'] });
    const created = await log.next((e) => e.event_type === 'plan_created' && e.source_agent === 'implementer');
    expect(created.payload.steps).toEqual([
      { step_id: 'step_1', sequence: 1, description: 'Write code' },
      { step_id: 'step_2', sequence: 2, description: 'Final step' },
    ]);

    const dep = await parent.addDependentStep({
      description: 'Review implementation results',
      depends_on: [{ agent_id: 'implementer', step_id: 'step_2' }],
    });
    expect(dep).toMatchObject({
      step_id: 'step_2',
      sequence: 2,
      status: 'blocked',
      blocked_by: [{ agent_id: 'implementer', step_id: 'step_2', plan_id: subPlan.plan_id }],
      message: expect.stringMatching(/^Step added with 1 dependencies \(BLOCKED\)/) as string,
    });
    expect(await parent.getBlockedSteps({})).toMatchObject({ count: 1, blocked_steps: [{ step_id: 'step_2' }] });

    await sub.startPlan({});
    await sub.setStepStatus({ step_id: 'step_1', status: 'completed' });
    const output = { passed: true, results: ['file1.py created', 'tests pass'], errors: [] };
    const done = await sub.completeStepWithOutput({
      step_id: 'step_2',
      output,
      result: 'Implementation completed successfully',
    });
    expect(done.unblocked).toEqual([{ agent_id: 'parent', plan_id: dep.plan_id, step_id: 'step_2' }]);

    const unblocked = await log.next((e) => e.event_type === 'step_unblocked');
    expect(unblocked).toMatchObject({
      source_agent: 'parent',
      source_step_id: 'step_2',
      payload: {
        received_outputs: ['implementer:step_2'],
        outputs: { 'implementer:step_2': output },
        unblocked_by: { agent_id: 'implementer', plan_id: subPlan.plan_id, step_id: 'step_2' },
        unblocked_by_agent: 'implementer',
      },
    });
    const status = await parent.getPlanStatus({});
    expect(status.steps[1]).toMatchObject({
      step_id: 'step_2',
      status: 'pending',
      received_outputs: { 'implementer:step_2': output },
    });
    expect(status.received_outputs).toEqual({ 'implementer:step_2': output });
    expect(await parent.getBlockedSteps({})).toEqual({
      plan_id: dep.plan_id,
      blocked_steps: [],
      count: 0,
      message: 'No blocked steps',
    });
    // The subagent's completion reached the parent as a push; the parent's own events did not come back to it.
    expect(log.of('step_completed').map((e) => `${e.source_agent}:${e.source_step_id}`)).toEqual([
      'implementer:step_1',
      'implementer:step_2',
    ]);
    expect(log.events.filter((e) => e.source_agent === 'parent').map((e) => e.event_type)).toEqual(['step_unblocked']);
  });

  it('resolves failed and skipped dependencies with their outcome, and keys outputs by provides too', async () => {
    await start();
    const parent = await h.client('parent');
    const [a, b, c] = await Promise.all([h.client('a'), h.client('b'), h.client('c')]);
    await startedPlan(parent, 'P', ['first']);
    for (const agent of [a, b, c]) await startedPlan(agent, 'S', ['work']);
    const dep = await parent.addDependentStep({
      description: 'Merge',
      depends_on: [
        { agent_id: 'a', step_id: 'step_1' },
        { agent_id: 'b', step_id: 'step_1' },
        { agent_id: 'c', step_id: 'step_1' },
      ],
    });
    await a.setStepStatus({ step_id: 'step_1', status: 'failed', error: 'Could not reach the API' });
    await b.setStepStatus({ step_id: 'step_1', status: 'skipped', result: 'Not needed' });
    expect((await parent.getBlockedSteps({})).blocked_steps[0]?.blocked_by).toEqual([
      expect.objectContaining({ agent_id: 'c' }),
    ]);
    await c.completeStepWithOutput({ step_id: 'step_1', output: { rows: 3 }, provides: 'dataset' });
    const step = (await parent.getPlanStatus({})).steps.find((s) => s.step_id === dep.step_id);
    expect(step).toMatchObject({
      status: 'pending',
      received_outputs: {
        'a:step_1': { status: 'failed', result: null, error: 'Could not reach the API' },
        'b:step_1': { status: 'skipped', result: 'Not needed', error: null },
        'c:step_1': { rows: 3 },
        dataset: { rows: 3 },
      },
    });
  });

  it('resolves at once a dependency on a step that already ended, and keeps one waiter per dependency', async () => {
    await start();
    const parent = await h.client('parent');
    const sub = await h.client('sub');
    const subPlan = await startedPlan(sub, 'S', ['one', 'two']);
    await sub.completeStepWithOutput({ step_id: 'step_1', output: { v: 1 } });
    const plan = await startedPlan(parent, 'P', ['a', 'b']);

    const ready = await parent.addDependentStep({
      description: 'Use v',
      depends_on: [{ agent_id: 'sub', step_id: 'step_1' }],
    });
    expect(ready).toMatchObject({ status: 'pending', blocked_by: [], received_outputs: { 'sub:step_1': { v: 1 } } });

    // The second form: an existing step waits; the same dependency named twice, and attached twice, is one waiter.
    const dep = { agent_id: 'sub', step_id: 'step_2' };
    const attached = await parent.addDependentStep({ step_id: 'step_2', depends_on: [dep, dep] });
    expect(attached).toMatchObject({ step_id: 'step_2', status: 'blocked', blocked_by: [{ ...dep }] });
    const again = await parent.addDependentStep({
      step_id: 'step_2',
      depends_on: [{ ...dep, plan_id: subPlan.plan_id }],
    });
    expect(again.blocked_by).toHaveLength(1);
    // Waits on another plan's step are kept by the target step (its waiter list), not in the target plan.
    const stored = await storedWaiters(h.server.services.store, 'ws', `${subPlan.plan_id}:step_2`);
    expect(stored.waiters).toEqual([{ agent_id: 'parent', plan_id: plan.plan_id, step_id: 'step_2' }]);

    const log = recordEvents(parent);
    // Live only: the wake-up of the step that was ready at once is history by now.
    await parent.subscribeToTasks({ event_types: ['step_unblocked'], after_event: '$' });
    await sub.completeStepWithOutput({ step_id: 'step_2', output: { v: 2 } });
    await log.next((e) => e.event_type === 'step_unblocked');
    await sub.completePlan({ status: 'completed' });
    expect(log.of('step_unblocked')).toHaveLength(1);
    expect((await parent.getPlanStatus({})).steps[1]).toMatchObject({ status: 'pending', blocked_by: [] });
  });

  it('refuses a dependency cycle across agents, and forgets edges once they resolve', async () => {
    await start();
    const [a, b, c] = await Promise.all([h.client('a'), h.client('b'), h.client('c')]);
    for (const agent of [a, b, c]) await startedPlan(agent, 'X', ['one', 'two']);
    await a.addDependentStep({ step_id: 'step_1', depends_on: [{ agent_id: 'b', step_id: 'step_1' }] });
    await b.addDependentStep({ step_id: 'step_1', depends_on: [{ agent_id: 'c', step_id: 'step_1' }] });
    const refused = c.addDependentStep({ step_id: 'step_1', depends_on: [{ agent_id: 'a', step_id: 'step_1' }] });
    await expect(refused).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
    await expect(refused).rejects.toThrow(/cycle \(c:step_1 .*→ a:step_1 .*→ step_1 of plan \w+ → c:step_1/);
    await expect(
      a.addDependentStep({ step_id: 'step_2', depends_on: [{ agent_id: 'a', step_id: 'step_2' }] }),
    ).rejects.toThrow(/cycle/);
    // Nothing of the refused calls was applied.
    expect((await c.getPlanStatus({})).steps[0]).toMatchObject({ status: 'pending' });

    // Once c:step_1 ends, the edge b→c is gone and c may wait on a without a cycle.
    await c.setStepStatus({ step_id: 'step_1', status: 'completed' });
    expect((await b.getPlanStatus({})).steps[0]?.status).toBe('pending');
    await expect(
      c.addDependentStep({ step_id: 'step_2', depends_on: [{ agent_id: 'a', step_id: 'step_1' }] }),
    ).resolves.toMatchObject({ status: 'blocked' });
  });

  it('lets a waiting agent give up on a blocked step: its edge goes, and a late completion leaves it alone', async () => {
    await start();
    const parent = await h.client('parent');
    const sub = await h.client('sub');
    await startedPlan(sub, 'S', ['final']);
    const waiting = await startedPlan(parent, 'P', ['wait']);
    await parent.addDependentStep({ step_id: 'step_1', depends_on: [{ agent_id: 'sub', step_id: 'step_1' }] });
    const node = `${waiting.plan_id}:step_1`;
    const state = () => h.server.services.store.loadCollections('ws', { sets: [`edges:${node}`, `out:${node}`] });
    expect((await state()).sets.map((s) => s.length)).toEqual([1, 1]);
    await parent.setStepStatus({ step_id: 'step_1', status: 'skipped', result: 'no longer needed' });
    const before = await parent.getPlanStatus({});
    // The step no longer waits: its edge left the graph and its outstanding set is gone.
    expect((await state()).sets).toEqual([[], []]);
    const log = recordEvents(parent);
    await parent.subscribeToTasks({ event_types: ['step_completed', 'step_unblocked'] });
    await sub.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await log.next((e) => e.event_type === 'step_completed');
    expect(log.of('step_unblocked')).toEqual([]);
    expect((await parent.getPlanStatus({})).steps[0]).toEqual(before.steps[0]);
  });

  it('explains what to do when a dependency cannot be found', async () => {
    await start();
    const parent = await h.client('parent');
    const sub = await h.client('sub');
    await startedPlan(parent, 'P', ['a']);
    // A step of no plan yet waits (spawn-then-depend, spawn-then-depend.test.ts); a plan id must name a plan.
    await expect(
      parent.addDependentStep({
        description: 'x',
        depends_on: [{ agent_id: 'sub', step_id: 'step_1', plan_id: 'nosuchid' }],
      }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/Plan nosuchid does not exist/) as string,
    });
    const done = await startedPlan(sub, 'S', ['only']);
    await sub.completePlan({ status: 'cancelled' });
    await expect(
      parent.addDependentStep({
        description: 'x',
        depends_on: [{ agent_id: 'sub', step_id: 'step_9', plan_id: done.plan_id }],
      }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(
        /step_9 does not exist .* cancelled and gets no more steps; its steps are step_1/,
      ) as string,
    });
    const waiting = await h.client('late');
    await waiting.createPlan({ title: 'L', steps: ['a'] });
    await expect(
      waiting.addDependentStep({ description: 'x', depends_on: [{ agent_id: 'sub', step_id: 'step_1' }] }),
    ).rejects.toThrow(/Plan not started/);
  });

  it("frees the agents waiting on a never-started plan's steps when a new plan supersedes it", async () => {
    await start();
    const parent = await h.client('parent');
    const sub = await h.client('sub');
    const waiting = await startedPlan(parent, 'P', ['first']);
    await sub.createPlan({ title: 'Draft', steps: ['draft step'] });
    const dep = await parent.addDependentStep({
      description: 'Use the draft',
      depends_on: [{ agent_id: 'sub', step_id: 'step_1' }],
    });
    expect(dep.status).toBe('blocked');

    await sub.createPlan({ title: 'Real', steps: ['real step'] });
    const step = (await parent.getPlanStatus({})).steps.find((s) => s.step_id === dep.step_id);
    expect(step).toMatchObject({
      status: 'pending',
      blocked_by: [],
      received_outputs: { 'sub:step_1': { status: 'skipped', result: 'plan cancelled', error: null } },
    });
    // Its edge left the workspace graph with it.
    const { sets } = await h.server.services.store.loadCollections('ws', {
      sets: [`edges:${waiting.plan_id}:${dep.step_id}`],
    });
    expect(sets).toEqual([[]]);
  });
});
