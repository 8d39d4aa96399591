import { afterEach, describe, expect, it } from 'vitest';
import { refusal } from '../helpers/refusals.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/**
 * limits.plansPerAgent bounds an agent's unfinished plans on every path: reopening a completed seed-004 plan with
 * update_plan makes it unfinished again, so it is refused as create_plan is when no room is left.
 */
describe.each(STORE_KINDS)('reopening an indexed plan at the plan limit (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('refuses the reopen with create_plan guidance, changing nothing, and allows it once there is room', async () => {
    h = await startHarness(store, { limits: { plansPerAgent: 1 } });
    const agent = await h.client('main');
    const first = await agent.create_plan({ title: 'P1', steps: [{ description: 'a' }] });
    expect(await agent.update_plan({ plan_id: first.plan_id, step_index: 0 })).toMatchObject({
      plan_status: 'completed',
    });
    const second = await agent.create_plan({ title: 'P2', steps: [{ description: 'b' }] });
    const atLimit = await refusal(agent.create_plan({ title: 'P3', steps: [{ description: 'c' }] }));

    const reopen = await refusal(agent.update_plan({ plan_id: first.plan_id, step_index: 0, status: 'pending' }));
    expect(reopen).toMatchObject({ code: 'RESOURCE_EXHAUSTED', message: atLimit.message });
    expect(await agent.get_plan({ plan_id: first.plan_id })).toMatchObject({
      status: 'completed',
      steps: [{ status: 'completed' }],
    });
    // Annotating a completed plan does not reopen it, so it needs no room.
    expect(await agent.update_plan({ plan_id: first.plan_id, step_index: 0, notes: 'checked' })).toMatchObject({
      plan_status: 'completed',
    });

    await agent.update_plan({ plan_id: second.plan_id, step_index: 0, status: 'skipped' });
    expect(await agent.update_plan({ plan_id: first.plan_id, step_index: 0, status: 'pending' })).toMatchObject({
      plan_status: 'in_progress',
    });
  });
});
