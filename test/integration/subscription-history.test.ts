import type { EventEnvelope } from '@planhub/client-sdk';
import { compareEventIds } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { recordEvents, startedPlan } from '../helpers/event-log.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/** subscribeToTasks replays the recent matching history by default; "$" is live-only; the SDK loses nothing. */
describe.each(STORE_KINDS)('subscription history and late listeners (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());
  const start = async () => (h = await startHarness(store, { approvalPolicy: 'auto' }));

  it('hands a parent that subscribes after its subagent planned the plan_created it missed, once', async () => {
    await start();
    const sub = await h.client('sub');
    await startedPlan(sub, 'Subagent work', ['a', 'b']);
    const parent = await h.client('parent');
    const seen = recordEvents(parent);
    const answer = await parent.subscribeToTasks({ agent_id: 'sub', event_types: ['plan_created', 'step_completed'] });
    expect(answer.replayed).toBe(1);
    expect(answer.message).toContain('1 earlier events were replayed');
    expect(seen.events.map((e) => e.event_type)).toEqual(['plan_created']);
    await sub.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await seen.next((e) => e.event_type === 'step_completed');
    // The same filter again (a renewal) replays nothing twice.
    await parent.subscribeToTasks({ agent_id: 'sub', event_types: ['plan_created', 'step_completed'] });
    await sub.setStepStatus({ step_id: 'step_2', status: 'completed' });
    await seen.next((e) => e.source_step_id === 'step_2');
    expect(seen.events.map((e) => `${e.event_type}:${e.source_step_id ?? ''}`)).toEqual([
      'plan_created:',
      'step_completed:step_1',
      'step_completed:step_2',
    ]);
  });

  it('gives after_event "$" live events only', async () => {
    await start();
    const sub = await h.client('sub');
    await startedPlan(sub, 'Before', ['a', 'b']);
    const live = await h.client('live');
    const seen = recordEvents(live);
    const answer = await live.subscribeToTasks({
      agent_id: 'sub',
      event_types: ['plan_created', 'step_completed'],
      after_event: '$',
    });
    expect(answer.replayed).toBe(0);
    await sub.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await seen.next((e) => e.event_type === 'step_completed');
    expect(seen.events.map((e) => e.event_type)).toEqual(['step_completed']);
  });

  it('keeps the events that arrive before onEvent is attached for the listener attached later', async () => {
    await start();
    const sub = await h.client('sub');
    await startedPlan(sub, 'Early', ['a']);
    const parent = await h.client('parent');
    // Replayed before the answer, and a live one after it: both arrive while nothing listens.
    await parent.subscribeToTasks({ agent_id: 'sub', event_types: ['plan_created', 'step_completed'] });
    await sub.setStepStatus({ step_id: 'step_1', status: 'completed' });
    const completed = (await sub.getTaskEvents({ event_types: ['step_completed'] })).events[0]!;
    await eventually(() => expect(parent.lastEventId).toBe(completed.event_id));

    const created: EventEnvelope[] = [];
    const done: EventEnvelope[] = [];
    parent.onEvent('plan_created', (e) => created.push(e));
    await eventually(() => expect(created).toHaveLength(1));
    parent.onEvent('step_completed', (e) => done.push(e));
    await eventually(() => expect(done.map((e) => e.event_id)).toEqual([completed.event_id]));
    // Handed once: a listener attached now gets only what comes next.
    const later = recordEvents(parent);
    await sub.completePlan({ status: 'completed', summary: 'done' });
    await sub.createPlan({ title: 'Second', steps: ['x'] });
    await later.next((e) => e.event_type === 'plan_created');
    expect(later.events.map((e) => e.event_type)).toEqual(['plan_created']);
    expect(created).toHaveLength(2);
  });

  it('never moves the resume cursor past events it did not deliver', async () => {
    await start();
    const sub = await h.client('sub');
    const parent = await h.client('parent');
    const seen = recordEvents(parent);
    await parent.subscribeToTasks({ agent_id: 'sub', event_types: ['plan_created'] });
    await startedPlan(sub, 'P', ['a', 'b']);
    const created = await seen.next((e) => e.event_type === 'plan_created');
    await sub.setStepStatus({ step_id: 'step_1', status: 'completed' });
    // A later subscription answers the stream's newer position; the cursor stays at the last delivered event.
    const later = await parent.subscribeToTasks({ agent_id: 'other', event_types: ['step_failed'] });
    expect(compareEventIds(later.last_event_id, created.event_id)).toBeGreaterThan(0);
    expect(parent.lastEventId).toBe(created.event_id);
    expect(parent.subscriptionState).toMatchObject({ state: 'live' });
  });

  it('names where a later subscription on a running stream finds the history it could not push', async () => {
    await start();
    const sub = await h.client('sub');
    const parent = await h.client('parent');
    await parent.subscribeToTasks({ event_types: ['step_failed'] });
    await startedPlan(sub, 'Already planned', ['a']);
    const late = await parent.subscribeToTasks({ agent_id: 'sub', event_types: ['plan_created'] });
    expect(late.replayed).toBe(0);
    const after = (late as { history_after?: string }).history_after;
    expect(after).toBeDefined();
    const history = await parent.getTaskEvents({ agent_id: 'sub', event_types: ['plan_created'], after_event: after });
    expect(history.events.map((e) => e.source_plan_title)).toEqual(['Already planned']);
  });
});
