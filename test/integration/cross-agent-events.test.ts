import { afterEach, describe, expect, it } from 'vitest';
import { recordEvents, startedPlan } from '../helpers/event-log.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/** Seed 000's event tools (subscribeToTasks, listSubscriptions, unsubscribe, getTaskEvents) and the pushes, on both stores. */
describe.each(STORE_KINDS)('seed 000 subscriptions and events (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());
  const start = async () => (h = await startHarness(store, { approvalPolicy: 'auto' }));

  it('stores subscriptions per agent, renews identical ones, and lets an agent remove only its own', async () => {
    await start();
    const a = await h.client('a');
    const b = await h.client('b');
    const first = await a.subscribeToTasks({ agent_id: '*', event_types: ['step_completed', 'plan_created'] });
    const same = await a.subscribeToTasks({ event_types: ['plan_created', 'step_completed'] });
    expect(same.subscription_id).toBe(first.subscription_id);
    expect(same.message).toMatch(/^Subscribed to 2 event type\(s\)\. .*already subscribed/);
    const other = await a.subscribeToTasks({ agent_id: 'b', event_types: ['step_failed'] });
    const theirs = await b.subscribeToTasks({ event_types: ['plan_created'] });
    expect((await a.listSubscriptions({})).subscriptions.map((s) => s.subscription_id)).toEqual([
      first.subscription_id,
      other.subscription_id,
    ]);

    expect(await a.unsubscribe({ subscription_id: theirs.subscription_id })).toMatchObject({
      success: false,
      subscription_id: theirs.subscription_id,
      removed: 0,
      message: expect.stringMatching(/^Subscription not found\. .*only remove your own/) as string,
    });
    await expect(a.unsubscribe({})).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await b.listSubscriptions({})).toMatchObject({ count: 1 });
    expect(await a.unsubscribe({ subscription_id: other.subscription_id })).toMatchObject({
      success: true,
      subscription_id: other.subscription_id,
      removed: 1,
    });
    expect(await a.unsubscribe({ all: true })).toMatchObject({ removed: 1 });
    expect(await a.listSubscriptions({})).toEqual({ subscriptions: [], count: 0 });
    expect(await b.listSubscriptions({})).toMatchObject({ count: 1 });
  });

  it('answers a repeated unsubscribe (a retry whose first answer was lost) instead of refusing it', async () => {
    await start();
    const a = await h.client('a');
    const b = await h.client('b');
    const { subscription_id } = await a.subscribeToTasks({ event_types: ['plan_created'] });
    expect(await a.unsubscribe({ subscription_id })).toMatchObject({ removed: 1 });
    expect(await a.unsubscribe({ subscription_id })).toMatchObject({
      success: true,
      removed: 0,
      message: `Subscription removed (${subscription_id} already was).`,
    });
    // Another agent still cannot touch it, removed or not.
    expect(await b.unsubscribe({ subscription_id })).toMatchObject({ success: false, removed: 0 });
    expect(await a.listSubscriptions({})).toEqual({ subscriptions: [], count: 0 });
  });

  it('filters pushes by agent, type, plan and step; dashboards get their own events too', async () => {
    await start();
    const watcher = await h.client('watcher');
    const board = await h.client('board', { role: 'user' });
    const a = await h.client('a');
    const b = await h.client('b');
    const watched = recordEvents(watcher);
    const boarded = recordEvents(board);
    await watcher.subscribeToTasks({ agent_id: 'a', event_types: ['step_completed', 'step_started'] });
    await board.subscribeToTasks({ event_types: ['plan_approved', 'step_completed'] });
    const planA = await startedPlan(a, 'A', ['x', 'y']);
    await startedPlan(b, 'B', ['x']);
    await watcher.subscribeToTasks({ event_types: ['step_failed'], plan_id: planA.plan_id, step_id: 'step_2' });
    await b.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await a.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    await a.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await a.setStepStatus({ step_id: 'step_2', status: 'failed' });
    await watched.next((e) => e.event_type === 'step_failed');
    expect(watched.events.map((e) => `${e.source_agent}:${e.event_type}:${e.source_step_id}`)).toEqual([
      'a:step_started:step_1',
      'a:step_completed:step_1',
      'a:step_failed:step_2',
    ]);

    expect(boarded.events.map((e) => `${e.source_agent}:${e.event_type}`)).toEqual([
      'policy:auto:plan_approved',
      'policy:auto:plan_approved',
      'b:step_completed',
      'a:step_completed',
    ]);
  });

  it('pushes to a user the events it caused itself', async () => {
    h = await startHarness(store);
    const user = await h.client('alice', { role: 'user' });
    const agent = await h.client('a');
    const seen = recordEvents(user);
    await user.subscribeToTasks({ event_types: ['plan_approved'] });
    const { plan_id } = await agent.createPlan({ title: 'T', steps: ['s'] });
    const starting = agent.startPlan({});
    await expect.poll(async () => (await user.getPlanStatus({ plan_id })).status).toBe('awaiting_approval');
    await user.plan_approve({ plan_id });
    await starting;
    expect((await seen.next((e) => e.event_type === 'plan_approved')).source_agent).toBe('alice');
  });

  it('replays history after after_event once, then goes live, never both for one event', async () => {
    await start();
    const a = await h.client('a');
    await startedPlan(a, 'A', ['1', '2', '3', '4']);
    await a.setStepStatus({ step_id: 'step_1', status: 'completed' });
    const history = await a.getTaskEvents({ limit: 500 });
    const mark = history.events.find((e) => e.event_type === 'step_completed')?.event_id;
    expect(mark).toBeDefined();
    await a.setStepStatus({ step_id: 'step_2', status: 'completed' });

    const reader = await h.client('reader');
    const log = recordEvents(reader);
    const answer = await reader.subscribeToTasks({ event_types: ['step_completed'], after_event: mark });
    expect(answer.replayed).toBe(1);
    await a.setStepStatus({ step_id: 'step_3', status: 'completed' });
    await log.next((e) => e.source_step_id === 'step_3');
    await reader.subscribeToTasks({ event_types: ['step_completed'], after_event: '0-0' });
    await a.setStepStatus({ step_id: 'step_4', status: 'completed' });
    await log.next((e) => e.source_step_id === 'step_4');
    expect(log.events.map((e) => e.source_step_id)).toEqual(['step_2', 'step_3', 'step_4']);

    // A fresh connection starting from "0-0" gets all retained history once.
    const late = await h.client('late');
    const lateLog = recordEvents(late);
    const all = await late.subscribeToTasks({ event_types: ['step_completed'], after_event: '0-0' });
    expect(all.replayed).toBe(4);
    expect(lateLog.events.map((e) => e.source_step_id)).toEqual(['step_1', 'step_2', 'step_3', 'step_4']);
  });

  it('says when a later subscription cannot replay the history it asked for, and where to read it', async () => {
    await start();
    const a = await h.client('a');
    const reader = await h.client('reader');
    await reader.subscribeToTasks({ event_types: ['plan_created'] });
    await startedPlan(a, 'A', ['1']);
    const late = await reader.subscribeToTasks({ event_types: ['plan_started'], after_event: '0-0' });
    expect(late.replayed).toBe(0);
    expect(late.message).toContain('read earlier events with getTaskEvents(after_event="0-0")');
    expect(late).toMatchObject({ history_after: '0-0' });
    const fresh = await h.client('fresh');
    const first = await fresh.subscribeToTasks({ event_types: ['plan_created'], after_event: '0-0' });
    expect(first.replayed).toBe(1);
    expect(first.message).not.toContain('getTaskEvents');
  });

  it("answers upstream's last_event_id (the last event returned) and where the read stopped as cursor", async () => {
    // With no event returned, last_event_id is the cursor (upstream leaves it out): see get-task-events.ts.
    await start();
    const a = await h.client('a');
    const b = await h.client('b');
    await startedPlan(a, 'A', ['1']);
    const all = await b.getTaskEvents({ after_event: '0-0', limit: 50 });
    const newest = all.events.at(-1)?.event_id;
    expect(all.events.map((e) => e.event_type)).toEqual(['plan_created', 'plan_approved', 'plan_started']);
    const created = await b.getTaskEvents({ event_types: ['plan_created'], after_event: '0-0' });
    expect(created).toMatchObject({ count: 1, last_event_id: all.events[0]?.event_id, cursor: newest });
    const none = await b.getTaskEvents({ agent_id: 'nobody', after_event: '0-0' });
    expect(none).toMatchObject({ count: 0, last_event_id: newest, cursor: newest });
    const recent = await b.getTaskEvents({ event_types: ['bogus', 'plan_created'] });
    expect(recent).toMatchObject({ count: 1, last_event_id: all.events[0]?.event_id });
    const after = await b.getTaskEvents({ event_types: ['plan_created'], after_event: created.cursor ?? '' });
    expect(after).toMatchObject({ count: 0, scanned: 0 });
  });

  it('reads events with a cursor, a limit and a long-poll', async () => {
    await start();
    const a = await h.client('a');
    const b = await h.client('b');
    await startedPlan(a, 'A', ['1', '2', '3']);
    const newest = await b.getTaskEvents({ limit: 2 });
    expect(newest.events.map((e) => e.event_type)).toEqual(['plan_approved', 'plan_started']);
    expect(newest.last_event_id).toBe(newest.events[1]?.event_id);
    const first = await b.getTaskEvents({ agent_id: 'a', after_event: '0-0', limit: 1 });
    expect(first.events.map((e) => e.event_type)).toEqual(['plan_created']);
    expect(first.last_event_id).toBe(first.events[0]?.event_id);
    const rest = await b.getTaskEvents({ agent_id: 'a', after_event: first.last_event_id ?? '', limit: 10 });
    expect(rest.events.map((e) => e.event_type)).toEqual(['plan_started']);
    const empty = await b.getTaskEvents({ event_types: ['step_completed'], after_event: rest.last_event_id ?? '' });
    expect(empty).toMatchObject({ events: [], count: 0, last_event_id: rest.cursor, cursor: rest.cursor });

    const polling = b.getTaskEvents({
      event_types: ['step_completed'],
      after_event: rest.last_event_id ?? '',
      timeout: 30,
    });
    await a.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    await a.setStepStatus({ step_id: 'step_1', status: 'completed' });
    const woke = await polling;
    expect(woke.events.map((e) => [e.event_type, e.source_step_id])).toEqual([['step_completed', 'step_1']]);
    expect(woke.last_event_id).toBe(woke.events[0]?.event_id);
    const quiet = await b.getTaskEvents({
      event_types: ['plan_failed'],
      after_event: woke.last_event_id ?? '',
      timeout: 0.2,
    });
    expect(quiet).toMatchObject({ events: [], count: 0 });
  });
});
