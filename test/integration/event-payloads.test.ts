import { TaskEventSchema, eventOf } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { SEED_002_PLAN } from './catalog-examples.ts';

describe.each(STORE_KINDS)('every event payload fits the schema of its type (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('parses the events of a session across the dialects with the discriminated union', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const main = await h.client('main');
    const sub = await h.client('sub');
    const user = await h.client('alice', { role: 'user' });
    await sub.createPlan({ title: 'Child', steps: ['work'] });
    await sub.startPlan({});
    await main.createPlan({ title: 'Parent', steps: ['spawn', 'await', 'finish'] });
    await main.startPlan({});
    await main.addStep({ description: 'extra' });
    await main.addDependentStep({ step_id: 'step_2', depends_on: [{ agent_id: 'sub', step_id: 'step_1' }] });
    await sub.completeStepWithOutput({ step_id: 'step_1', output: { passed: true }, provides: 'result' });
    await main.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    await main.setStepStatus({ step_id: 'step_1', status: 'failed', error: 'boom' });
    await main.setStepStatus({ step_id: 'step_3', status: 'skipped' });
    await main.completePlan({ status: 'completed', summary: 'done enough' });
    await sub.completePlan({ status: 'completed' });
    await main.todo({ action: 'create', todos: [{ content: 'a', activeForm: 'doing a', status: 'pending' }] });
    await main.todo_write({ todos: [{ id: '1', content: 'x', status: 'pending', priority: 'high' }] });
    await main.TaskCreate({ subject: 'T', description: 'd' });
    await main.TaskUpdate({ taskId: '1', status: 'completed' });
    await main.create_plan({ title: 'Indexed', steps: [{ description: 'one' }] });
    await main.plan_enter({ goal: 'Plan the auth work' });
    await main.execute('plan_exit', { plan: SEED_002_PLAN });

    const { events } = await user.getTaskEvents({ limit: 500 });
    expect(events.length).toBeGreaterThan(20);
    for (const event of events) {
      const parsed = TaskEventSchema.safeParse(event);
      expect(parsed.success ? 'fits' : `${event.event_type}: ${parsed.error.message}`).toBe('fits');
    }
    const ended = events.find((e) => e.event_type === 'plan_completed' && e.source_agent === 'main');
    expect(ended && eventOf(ended, 'plan_completed')?.payload).toMatchObject({
      summary: 'done enough',
      warning: expect.stringMatching(/unfinished/) as string,
      unfinished_steps: [
        expect.objectContaining({ step_id: 'step_2', status: 'pending' }),
        expect.objectContaining({ step_id: 'step_4', status: 'pending' }),
      ],
    });
    const types = new Set(events.map((e) => e.event_type));
    for (const type of [
      'plan_created',
      'step_blocked',
      'step_unblocked',
      'todos_updated',
      'task_created',
      'mode_changed',
    ])
      expect(types).toContain(type);
  });

  it("sends completeStepWithOutput's step_completed as upstream's {output, result, provides}, provides null when unset", async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const sub = await h.client('sub');
    await sub.createPlan({ title: 'Child', steps: ['named', 'unnamed', 'plain'] });
    await sub.startPlan({});
    await sub.completeStepWithOutput({ step_id: 'step_1', output: { passed: true }, provides: 'report' });
    await sub.completeStepWithOutput({ step_id: 'step_2', output: { passed: false }, result: 'two failures' });
    await sub.setStepStatus({ step_id: 'step_3', status: 'completed', result: 'done' });
    const { events } = await sub.getTaskEvents({ agent_id: 'sub', event_types: ['step_completed'] });
    expect(events.map((e) => [e.source_step_id, e.payload])).toEqual([
      ['step_1', { output: { passed: true }, result: null, provides: 'report', error: null }],
      ['step_2', { output: { passed: false }, result: 'two failures', provides: null, error: null }],
      // setStepStatus sends upstream's {result, error}, with output and provides only when the step has them.
      ['step_3', { result: 'done', error: null }],
    ]);
  });
});
