import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { startHarness } from '../helpers/servers.ts';
import { callJson, mcpClient, textOf } from './mcp-clients.ts';
import { mcpTeam } from './mcp-team.ts';

interface Waited {
  events: { event_type: string; source_step_id: string | null }[];
  last_event_id: string;
  message: string;
}

/** One waitForEvents with progress, timed from when it was sent: when it answered, and when its progress came. */
const timedWait = (client: Client, args: Record<string, unknown>) => {
  const sent = performance.now();
  const progress: number[] = [];
  const answer = client
    .callTool({ name: 'waitForEvents', arguments: args }, undefined, {
      onprogress: () => void progress.push(performance.now()),
    })
    .then((result) => ({ waited: JSON.parse(textOf(result as CallToolResult)) as Waited, at: performance.now() }));
  return { sent, progress, answer };
};

/**
 * A host may make parallel tool calls, two waitForEvents of one session among them. They run one after another (they
 * share the session's cursor), but each keeps the deadline and heartbeat its call arrived with: a queued wait used to
 * start its timeout and progress only on its turn, and outlived the host's tool timeout (mcp.md: `timeout` 0-30 "so a
 * wait ends inside host timeouts", progress "at the start of the wait").
 */
describe('overlapping waitForEvents calls of one MCP session', () => {
  const team = mcpTeam('http');
  const open = async () => {
    team.harness = await startHarness('memory', { approvalPolicy: 'auto' });
    const watcher = team.adopt(await mcpClient('http', team.harness.url, { workspace: 'ws', agentId: 'watcher' }));
    return { harness: team.harness, watcher };
  };

  it('answers a queued wait by its own deadline, with progress from its arrival', async () => {
    const { watcher } = await open();
    const first = timedWait(watcher, { timeout: 3 });
    const second = timedWait(watcher, { timeout: 3 });
    const [one, two] = await Promise.all([first.answer, second.answer]);
    expect(one.waited.events).toEqual([]);
    expect(two.waited.events).toEqual([]);
    // About 3 s after it was sent; one after the other would be 6 s.
    expect(two.at - second.sent).toBeLessThan(5_000);
    // Both beat at once: the queued one before the first wait answered, not on its turn.
    expect(first.progress.length).toBeGreaterThan(0);
    expect(second.progress[0]).toBeLessThan(one.at);
  });

  it('answers a queued wait whose deadline comes first while the other still waits, and moves no cursor', async () => {
    const { harness, watcher } = await open();
    await callJson(watcher, 'subscribeToTasks', { event_types: ['step_completed'], agent_id: 'worker' });
    const before = await callJson<Waited>(watcher, 'waitForEvents', { timeout: 0 });
    const long = timedWait(watcher, { timeout: 10 });
    const short = timedWait(watcher, { timeout: 1 });
    const early = await short.answer;
    expect(early.waited).toMatchObject({ events: [], last_event_id: before.last_event_id });
    expect(early.waited.message).toContain('another waitForEvents call of this session');
    // The long wait is still waiting, and still gets what comes next.
    const worker = await harness.client('worker');
    await worker.createPlan({ title: 'work', steps: ['one'] });
    await worker.startPlan({});
    await worker.setStepStatus({ step_id: 'step_1', status: 'completed' });
    const late = await long.answer;
    expect(early.at).toBeLessThan(late.at);
    expect(late.waited.events.map((e) => e.source_step_id)).toEqual(['step_1']);
  });

  it('still hands each event to one of them only', async () => {
    const { harness, watcher } = await open();
    await callJson(watcher, 'subscribeToTasks', { event_types: ['step_completed'], agent_id: 'worker' });
    const waits = [timedWait(watcher, { timeout: 3 }), timedWait(watcher, { timeout: 3 })];
    const worker = await harness.client('worker');
    await worker.createPlan({ title: 'work', steps: ['one', 'two'] });
    await worker.startPlan({});
    await worker.setStepStatus({ step_id: 'step_1', status: 'completed' });
    const answers = await Promise.all(waits.map((w) => w.answer));
    const after = await callJson<Waited>(watcher, 'waitForEvents', { timeout: 0 });
    const steps = [...answers.map((a) => a.waited), after].flatMap((w) => w.events.map((e) => e.source_step_id));
    expect(steps).toEqual(['step_1']);
  });

  it('hands no event to a queued wait its host cancelled: the next wait gets it', async () => {
    const { harness, watcher } = await open();
    // Nothing matches yet: both waits stay queued while the events are written.
    await callJson(watcher, 'subscribeToTasks', { event_types: ['step_completed'], agent_id: 'nobody' });
    await callJson(watcher, 'waitForEvents', { timeout: 0 });
    const first = timedWait(watcher, { timeout: 10, limit: 1 });
    const abort = new AbortController();
    let arrived: () => void = () => {};
    const queued = new Promise<void>((resolve) => (arrived = resolve));
    const cancelled = watcher
      .callTool({ name: 'waitForEvents', arguments: { timeout: 10, limit: 1 } }, undefined, {
        signal: abort.signal,
        // Its first progress says the node has the call, queued behind the first.
        onprogress: () => arrived(),
      })
      .then(
        () => 'answered',
        () => 'cancelled',
      );
    await queued;
    abort.abort('the host gave up');
    expect(await cancelled).toBe('cancelled');
    const worker = await harness.client('worker');
    await worker.createPlan({ title: 'work', steps: ['one', 'two'] });
    await worker.startPlan({});
    await worker.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await worker.setStepStatus({ step_id: 'step_2', status: 'completed' });
    // Now a subscription that matches them wakes the first wait, which takes one; the cancelled one must take none.
    await callJson(watcher, 'subscribeToTasks', { event_types: ['step_completed'], agent_id: 'worker' });
    expect((await first.answer).waited.events.map((e) => e.source_step_id)).toEqual(['step_1']);
    const next = await callJson<Waited>(watcher, 'waitForEvents', { timeout: 1 });
    expect(next.events.map((e) => e.source_step_id)).toEqual(['step_2']);
  });
});
