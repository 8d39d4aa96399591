import type { EventEnvelope } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { recordEvents, startedPlan } from '../helpers/event-log.ts';
import { scriptedNode } from '../helpers/scripted-node.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { within } from '../helpers/within.ts';

/**
 * A push stream started after a cursor later than the newest event of the log used to drop every event for good: the
 * node skipped each one as older than its cursor, and the SDK each one as older than its lastEventId. The stream now
 * restarts from the oldest kept event, and its first push tells the SDK to drop its cursor.
 */
const FUTURE = '1900000000000-0';
const NEVER = 'never delivered';
const PROMPT_MS = 10_000;

const FILTER = { agent_id: 'sub', event_types: ['plan_created', 'step_completed'] as const };

/** An event from another hub, whose ids run ahead of this workspace's log. */
const foreignEvent = {
  event_id: FUTURE,
  event_type: 'step_completed',
  timestamp: new Date(0).toISOString(),
  workspace: 'ws',
  source_agent: 'sub',
  source_plan_id: 'elsewhere',
  source_plan_title: 'Elsewhere',
  source_step_id: 'step_9',
  source_step_description: 'x',
  source_step_sequence: 9,
  payload: { result: 'done', error: null },
};

const named = (events: EventEnvelope[]) => events.map((e) => `${e.event_type}:${e.source_step_id ?? ''}`);

describe.each(STORE_KINDS)('a push stream after a cursor past the end of the log (%s store)', (store) => {
  let h: Harness;
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
    await h.close();
  });

  it('replays from the oldest kept event, says so, and delivers the live events that follow', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const sub = await h.client('sub');
    await startedPlan(sub, 'Work', ['a', 'b']);
    const parent = await h.client('parent');
    const seen = recordEvents(parent);
    const answer = await parent.subscribeToTasks({
      ...FILTER,
      event_types: [...FILTER.event_types],
      after_event: FUTURE,
    });
    expect(answer.warning).toMatch(/^after_event "1900000000000-0" is later than the newest event/);
    expect(answer.replayed).toBe(1);
    await sub.setStepStatus({ step_id: 'step_1', status: 'completed' });
    const live = await within(
      seen.next((e) => e.event_type === 'step_completed'),
      PROMPT_MS,
      NEVER,
    );
    expect(live).not.toBe(NEVER);
    expect(named(seen.events)).toEqual(['plan_created:', 'step_completed:step_1']);
    expect(parent.lastEventId).toBe((live as EventEnvelope).event_id);
  });

  it("delivers events to an SDK whose lastEventId is past the log's end once it resumes on this node", async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    // The first node the client reaches pushed it an event with an id ahead of this workspace's log.
    const elsewhere = await scriptedNode((call, ack, socket) => {
      if (call.tool !== 'subscribeToTasks') return;
      socket.emit('event', foreignEvent);
      ack({
        ok: true,
        result: { subscription_id: 'sub_1', ...FILTER, replayed: 1, last_event_id: '0-0', message: '' },
      });
    });
    cleanups.push(elsewhere.close);
    const sub = await h.client('sub');
    await startedPlan(sub, 'Work', ['a', 'b']);
    const parent = await h.client('parent', { url: [elsewhere.url, h.url] });
    const seen = recordEvents(parent);
    await parent.subscribeToTasks({ ...FILTER, event_types: [...FILTER.event_types] });
    await seen.next((e) => e.event_id === FUTURE);
    expect(parent.lastEventId).toBe(FUTURE);

    // That node goes away: the client reconnects to this one and renews its subscription after FUTURE.
    await elsewhere.close();
    const replayed = await within(
      seen.next((e) => e.event_type === 'plan_created'),
      PROMPT_MS,
      NEVER,
    );
    expect(replayed).not.toBe(NEVER);
    await sub.setStepStatus({ step_id: 'step_1', status: 'completed' });
    const live = await within(
      seen.next((e) => e.event_type === 'step_completed' && e.event_id !== FUTURE),
      PROMPT_MS,
      NEVER,
    );
    expect(live).not.toBe(NEVER);
    expect(named(seen.events)).toEqual(['step_completed:step_9', 'plan_created:', 'step_completed:step_1']);
    expect(parent.lastEventId).toBe((live as EventEnvelope).event_id);
    // The node's note is not part of the event the application gets.
    expect(seen.events.every((e) => !('restarted_after' in e))).toBe(true);
  });
});
