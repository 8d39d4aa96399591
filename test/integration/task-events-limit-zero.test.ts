import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/** Upstream's get_recent_events returns `events[-limit:]`, so `limit: 0` is every event; PlanHub refused it. */
describe.each(STORE_KINDS)('getTaskEvents with limit 0 (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('returns as many events as one call does, as upstream returns all', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await agent.createPlan({ title: 'Work', steps: Array.from({ length: 30 }, (_, i) => `step ${i + 1}`) });
    await agent.startPlan({});
    for (let i = 1; i <= 30; i++) await agent.setStepStatus({ step_id: `step_${i}`, status: 'completed' });
    // The plan's own events and 30 step_completed: more than the default 20, fewer than the most one call returns.
    const all = await agent.getTaskEvents({ limit: 0 });
    expect(all.count).toBeGreaterThan(30);
    expect(all.count).toBe((await agent.getTaskEvents({ limit: 500 })).count);
    const first = all.events[0]?.event_id ?? '';
    expect((await agent.getTaskEvents({ limit: 0, after_event: first })).count).toBe(all.count - 1);
    expect((await agent.getTaskEvents({})).count).toBe(20);
  });
});
