import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startedPlan } from '../helpers/event-log.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { callJson, mcpClient } from '../mcp/mcp-clients.ts';

/**
 * A cursor later than the newest event of the log (a store wiped or restarted with its clock behind the old ids,
 * another hub's id, an id a model made up) used to leave a reader deaf: every read after it found nothing, for ever.
 * Like an id the log never wrote, it now reads from the oldest kept event, and the answer says so.
 */
const FUTURE = '1900000000000-0';
const PAST_END = /^after_event "1900000000000-0" is later than the newest event of this workspace's log/;

interface Waited {
  events: { event_id: string; event_type: string; source_step_id: string | null }[];
  last_event_id: string;
  warning?: string;
}

describe.each(STORE_KINDS)('reads after a cursor past the end of the log (%s store)', (store) => {
  let h: Harness;
  const sessions: Client[] = [];
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((c) => c.close()));
    await h.close();
  });

  it('getTaskEvents reads from the oldest kept event, says so, and continues from its cursor', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const agent = await h.client('main');
    await startedPlan(agent, 'P', ['a', 'b']);
    const all = await agent.getTaskEvents({ after_event: '0-0', limit: 500 });
    expect(all.count).toBeGreaterThan(2);

    const read = await agent.getTaskEvents({ after_event: FUTURE, limit: 2 });
    expect(read.events.map((e) => e.event_id)).toEqual(all.events.slice(0, 2).map((e) => e.event_id));
    expect(read.warning).toMatch(PAST_END);
    const next = await agent.getTaskEvents({ after_event: read.cursor!, limit: 500 });
    expect(next.warning).toBeUndefined();
    expect([...read.events, ...next.events].map((e) => e.event_id)).toEqual(all.events.map((e) => e.event_id));
  });

  it('getTaskEvents with a timeout waits, then answers the event another agent commits', async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const reader = await h.client('reader');
    const other = await h.client('other');
    await startedPlan(reader, 'Mine', ['a']);
    // Nothing of other's yet: the read from the oldest event finds nothing to return, so the call waits.
    const waiting = reader.getTaskEvents({ after_event: FUTURE, agent_id: 'other', timeout: 20 });
    await other.createPlan({ title: 'Theirs', steps: ['b'] });
    const answer = await waiting;
    expect(answer.events.map((e) => [e.event_type, e.source_agent])).toEqual([['plan_created', 'other']]);
    expect(answer.warning).toMatch(PAST_END);
  });

  it("waitForEvents returns the session's events from the oldest kept one, says so, and goes on", async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    const watcher = await mcpClient('http', h.url, { workspace: 'ws', agentId: 'watcher' });
    sessions.push(watcher);
    const worker = await h.client('worker');
    await startedPlan(worker, 'Work', ['one', 'two']);
    await callJson(watcher, 'subscribeToTasks', { agent_id: 'worker', event_types: ['step_completed'] });
    await worker.setStepStatus({ step_id: 'step_1', status: 'completed' });

    const first = await callJson<Waited>(watcher, 'waitForEvents', { after_event: FUTURE, timeout: 0 });
    expect(first.events.map((e) => e.source_step_id)).toEqual(['step_1']);
    expect(first.warning).toMatch(PAST_END);

    // The session's cursor moved back into the log: the next event is returned as it comes.
    const waiting = callJson<Waited>(watcher, 'waitForEvents', { timeout: 20 });
    await worker.setStepStatus({ step_id: 'step_2', status: 'completed' });
    const second = await waiting;
    expect(second.events.map((e) => e.source_step_id)).toEqual(['step_2']);
    expect(second.warning).toBeUndefined();
  });
});
