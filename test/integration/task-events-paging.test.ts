import { afterEach, describe, expect, it } from 'vitest';
import { startedPlan } from '../helpers/event-log.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/** getTaskEvents' backward cursor, text filter and scan budget, on both stores. */
describe.each(STORE_KINDS)('paging back through the event log (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it('pages back with before_event and next_before until the oldest event, without gaps or repeats', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const a = await h.client('a');
    await startedPlan(a, 'Paged', ['1', '2', '3', '4', '5']);
    for (const step of ['step_1', 'step_2', 'step_3']) await a.setStepStatus({ step_id: step, status: 'completed' });
    const all = await a.getTaskEvents({ limit: 500 });
    const seen: string[] = [];
    let before: string | null | undefined;
    do {
      const page = await a.getTaskEvents({ limit: 2, ...(before ? { before_event: before } : {}) });
      seen.unshift(...page.events.map((e) => e.event_id));
      before = page.next_before;
    } while (before);
    expect(seen).toEqual(all.events.map((e) => e.event_id));
    expect(all.next_before).toBeNull();
  });

  it('keeps the events that mention a text, and refuses both cursors at once', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const a = await h.client('a');
    await startedPlan(a, 'Needle in the log', ['1']);
    await a.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'found the HAYSTACK bug' });
    const hits = await a.getTaskEvents({ text: 'haystack' });
    expect(hits.events.map((e) => e.event_type)).toEqual(['step_completed']);
    const titled = await a.getTaskEvents({ text: 'needle', event_types: ['plan_created'] });
    expect(titled.events).toHaveLength(1);
    await expect(a.getTaskEvents({ after_event: '0-0', before_event: '9-0' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });
});
