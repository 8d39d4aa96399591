import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/**
 * Triggerfish's stepComplete sets `currentStep = nextStep?.id ?? stepId` and plan_status reports it: the step to do
 * next, and once none is left the step completed last, never null while the plan executes.
 */
describe.each(STORE_KINDS)("dialect 002: plan_status's current_step as upstream keeps it (%s store)", (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  const executing = async (steps: Array<{ id: number; description: string }>) => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await agent.plan_enter({ goal: 'G' });
    await agent.plan_exit({ plan: { summary: 's', approach: 'a', steps } });
    return agent;
  };

  it('names the last completed step once every step is done, where it used to answer null', async () => {
    const agent = await executing([
      { id: 1, description: 'one' },
      { id: 2, description: 'two' },
    ]);
    expect((await agent.plan_status({})).active_plan_progress).toEqual({
      total_steps: 2,
      completed_steps: 0,
      current_step: 1,
    });
    await agent.plan_step_complete({ step_id: 1, verification_result: 'ok' });
    expect((await agent.plan_status({})).active_plan_progress?.current_step).toBe(2);
    const last = await agent.plan_step_complete({ step_id: 2, verification_result: 'ok' });
    // plan_step_complete's own next_step stays upstream's: null when no step is left.
    expect(last.progress.next_step).toBeNull();
    expect((await agent.plan_status({})).active_plan_progress).toEqual({
      total_steps: 2,
      completed_steps: 2,
      current_step: 2,
    });
  });

  it("names a step that waits on another agent's step, as upstream names the first step not completed", async () => {
    const agent = await executing([
      { id: 1, description: 'one' },
      { id: 2, description: 'two' },
    ]);
    const worker = await h.client('worker');
    await worker.createPlan({ title: 'W', steps: ['Build the module'] });
    await worker.startPlan({});
    await agent.addDependentStep({ step_id: 'step_2', depends_on: [{ agent_id: 'worker', step_id: 'step_1' }] });
    await agent.plan_step_complete({ step_id: 1, verification_result: 'ok' });
    expect((await agent.plan_status({})).active_plan_progress).toEqual({
      total_steps: 2,
      completed_steps: 1,
      current_step: 2,
    });
  });

  it('names the step completed last, not the last in plan order, when steps are done out of order', async () => {
    const agent = await executing([
      { id: 1, description: 'one' },
      { id: 2, description: 'two' },
      { id: 3, description: 'three' },
    ]);
    await agent.plan_step_complete({ step_id: 3, verification_result: 'ok' });
    expect((await agent.plan_status({})).active_plan_progress?.current_step).toBe(1);
    await agent.plan_step_complete({ step_id: 2, verification_result: 'ok' });
    // Times are kept to the millisecond: wait for the next one so the last completion is unambiguous.
    const before = Date.now();
    await expect.poll(() => Date.now()).toBeGreaterThan(before);
    await agent.plan_step_complete({ step_id: 1, verification_result: 'ok' });
    expect((await agent.plan_status({})).active_plan_progress?.current_step).toBe(1);
  });
});
