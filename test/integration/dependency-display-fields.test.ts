import { afterEach, describe, expect, it } from 'vitest';
import { startedPlan } from '../helpers/event-log.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

const DISPLAY = { agent_name: 'Researcher', step_sequence: 2, step_description: 'Final analysis' };

/**
 * Upstream's TaskRef takes display fields beside agent_id/step_id/plan_id and shows them wherever the dependency is
 * shown (TaskRef.to_dict): the answer, getBlockedSteps, getPlanStatus and step_blocked. They were accepted and dropped.
 */
describe.each(STORE_KINDS)("a dependency's display fields (%s store)", (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('are kept on the dependency and shown wherever it is, and never used to find the step', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const main = await h.client('main');
    const researcher = await h.client('researcher');
    await startedPlan(researcher, 'Research', ['Collect', 'Analyse']);
    await startedPlan(main, 'Parent', ['Spawn', 'Await results']);
    // The display says sequence 2 and another description; the step is found by its id alone.
    const waiting = await main.addDependentStep({
      step_id: 'step_2',
      depends_on: [{ agent_id: 'researcher', step_id: 'step_1', ...DISPLAY }],
    });
    const shown = { agent_id: 'researcher', step_id: 'step_1', ...DISPLAY };
    expect(waiting.blocked_by).toEqual([expect.objectContaining(shown)]);

    const blocked = await main.getBlockedSteps({});
    expect(blocked.blocked_steps[0]?.blocked_by).toEqual([expect.objectContaining(shown)]);
    expect(blocked.blocked_steps[0]?.depends_on).toEqual([expect.objectContaining(shown)]);
    const status = await main.getPlanStatus({});
    expect(status.steps[1]?.depends_on).toEqual([expect.objectContaining(shown)]);
    const [event] = (await main.getTaskEvents({ event_types: ['step_blocked'], agent_id: 'main' })).events;
    expect(event?.payload).toMatchObject({ blocked_by: [expect.objectContaining(shown)] });

    await researcher.completeStepWithOutput({ step_id: 'step_1', output: { found: 3 } });
    const after = await main.getPlanStatus({});
    expect(after.steps[1]).toMatchObject({
      status: 'pending',
      received_outputs: { 'researcher:step_1': { found: 3 } },
    });
    expect(after.steps[1]?.depends_on).toEqual([expect.objectContaining(shown)]);
  });

  it('are kept on a dependency that waits for a step not created yet, and refused past their bounds', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const main = await h.client('main');
    await startedPlan(main, 'Parent', ['Spawn', 'Await results']);
    const waiting = await main.addDependentStep({
      description: 'Review the future work',
      depends_on: [{ agent_id: 'later', step_id: 'step_3', agent_name: 'Later', step_sequence: '3' }],
    });
    expect(waiting.blocked_by).toEqual([
      expect.objectContaining({ agent_id: 'later', step_id: 'step_3', agent_name: 'Later', step_sequence: 3 }),
    ]);
    const refused = await main
      .addDependentStep({
        description: 'Too long',
        depends_on: [{ agent_id: 'later', step_id: 'step_1', step_description: 'x'.repeat(5000) }],
      })
      .catch((err: { code?: string }) => err);
    expect(refused).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
