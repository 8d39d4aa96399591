import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/**
 * Upstream's getTaskEvents takes any string as after_event: "If the id is no longer in the window, all events are
 * returned". An id this log never wrote (upstream's own ids are UUIDs) used to be refused as malformed.
 */
describe.each(STORE_KINDS)('getTaskEvents after an id this log never wrote (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('reads from the oldest kept event, says so, and continues from its cursor', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await agent.createPlan({ title: 'P', steps: ['a', 'b'] });
    await agent.startPlan({});
    const all = await agent.getTaskEvents({ after_event: '0-0', limit: 500 });
    expect(all.count).toBeGreaterThan(2);
    for (const foreign of ['nonexistent-id', '3f1c1b9e-8a1e-4d7b-9d5c-1a2b3c4d5e6f']) {
      const read = await agent.getTaskEvents({ after_event: foreign, limit: 2 });
      expect(read.events.map((e) => e.event_id)).toEqual(all.events.slice(0, 2).map((e) => e.event_id));
      expect(read.warning).toMatch(new RegExp(`^after_event "${foreign}" is not an event id of this workspace's log`));
      const next = await agent.getTaskEvents({ after_event: read.cursor!, limit: 500 });
      expect(next.warning).toBeUndefined();
      expect([...read.events, ...next.events].map((e) => e.event_id)).toEqual(all.events.map((e) => e.event_id));
    }
    // A real id still reads after it, with no warning.
    const after = await agent.getTaskEvents({ after_event: all.events[0]!.event_id, limit: 1 });
    expect(after).toMatchObject({ count: 1, events: [{ event_id: all.events[1]!.event_id }] });
    expect(after.warning).toBeUndefined();
  });

  it('reads "$" as subscribeToTasks does: no history, only what comes after the newest event', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    const other = await h.client('other');
    await agent.createPlan({ title: 'P', steps: ['a', 'b'] });
    await agent.startPlan({});
    const newest = (await agent.getTaskEvents({ limit: 1 })).events[0]!.event_id;
    const now = await agent.getTaskEvents({ after_event: '$' });
    expect(now).toMatchObject({ count: 0, events: [], cursor: newest });
    expect(now.warning).toBeUndefined();

    await other.createPlan({ title: 'Q', steps: ['c'] });
    const next = await agent.getTaskEvents({ after_event: now.cursor!, agent_id: 'other' });
    expect(next.events.map((e) => [e.event_type, e.source_agent])).toEqual([['plan_created', 'other']]);
  });
});
