import type { NewEvent } from '@planhub/shared';
import { createLogger, createRedisStore, type ServerConfigInput } from '@planhub/server';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { bigEvent } from '../helpers/big-event.ts';
import { STORE_KINDS, startHarness, uniquePrefix, type StoreKind } from '../helpers/servers.ts';
import { callJson, callRaw, mcpClient, refusalOf } from './mcp-clients.ts';
import { mcpTeam } from './mcp-team.ts';

interface Waited {
  events: { event_type: string; source_agent: string; source_step_id: string | null }[];
  last_event_id: string;
}

const stepsCompleted = (...answers: Waited[]) =>
  answers.flatMap((a) => a.events).filter((e) => e.event_type === 'step_completed' && e.source_agent === 'worker');

/** Long enough for the wait below to have read the agent's subscriptions and begun waiting. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

/** A node and the watcher's MCP session on it, both closed after each test of the describe that calls this. */
const watcherOnANode = () => {
  const team = mcpTeam('http');
  return async (kind: StoreKind, config: ServerConfigInput) => {
    const harness = await startHarness(kind, config);
    team.harness = harness;
    const watcher = team.adopt(await mcpClient('http', harness.url, { workspace: 'ws', agentId: 'watcher' }));
    return { harness, watcher };
  };
};

/**
 * A waitForEvents picks the agent's events by its subscriptions, which another call may change while it waits. An
 * event only a new subscription matches used to be passed over, and the session's cursor moved past it for good.
 */
describe.each(STORE_KINDS)("waitForEvents while its agent's subscriptions change (%s store)", (kind) => {
  const open = watcherOnANode();
  const start = async () => {
    const { harness, watcher } = await open(kind, { approvalPolicy: 'auto' });
    const worker = await harness.client('worker');
    await worker.createPlan({ title: 'work', steps: ['one', 'two'] });
    await worker.startPlan({});
    return { watcher, worker, harness };
  };

  it('wakes on a subscription the same session makes, and returns what only it matches', async () => {
    const { watcher, worker } = await start();
    const waiting = callJson<Waited>(watcher, 'waitForEvents', { timeout: 20 });
    await settle();
    await callJson(watcher, 'subscribeToTasks', { event_types: ['step_completed'], agent_id: 'worker' });
    await worker.setStepStatus({ step_id: 'step_1', status: 'completed' });
    const first = await waiting;
    expect(stepsCompleted(first).map((e) => e.source_step_id)).toEqual(['step_1']);
  });

  it('does not pass over an event matched by a subscription made on another connection meanwhile', async () => {
    const { watcher, worker, harness } = await start();
    await callJson(watcher, 'subscribeToTasks', { event_types: ['plan_created'], agent_id: 'helper' });
    const waiting = callJson<Waited>(watcher, 'waitForEvents', { timeout: 20 });
    await settle();
    const elsewhere = await harness.client('watcher');
    await elsewhere.subscribeToTasks({ event_types: ['step_completed'], agent_id: 'worker' });
    await worker.setStepStatus({ step_id: 'step_1', status: 'completed' });
    // Wakes the wait by its first subscription; the step completed before it must not be passed over.
    await (await harness.client('helper')).createPlan({ title: 'help', steps: ['three'] });
    const first = await waiting;
    expect(first.events.map((e) => e.event_type)).toContain('plan_created');
    const next = await callJson<Waited>(watcher, 'waitForEvents', { timeout: 0 });
    // Returned once, by the first wait or the next one: never skipped.
    expect(stepsCompleted(first, next).map((e) => e.source_step_id)).toEqual(['step_1']);
  });
});

/**
 * Redis trims the log back to its retention only once it runs 1 % over it, so one scan of at most the retention can
 * stop short of the newest event. A wait used to sleep then, although an unread event was there.
 */
describe('waitForEvents on a Redis log a little over its retention', () => {
  const closers: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  it('reads past a scan that stopped at the retention and returns the newest event at once', async () => {
    const retention = 200;
    const prefix = uniquePrefix();
    const harness = await startHarness('redis', {
      approvalPolicy: 'auto',
      eventRetention: retention,
      redisPrefix: prefix,
    });
    closers.push(() => harness.close());
    const writer = createRedisStore({
      url: inject('redisUrl'),
      prefix,
      eventRetention: retention,
      log: createLogger('silent'),
    });
    closers.push(() => writer.close());
    const watcher = await mcpClient('http', harness.url, { workspace: 'ws', agentId: 'watcher' });
    closers.push(() => watcher.close());
    await callJson(watcher, 'subscribeToTasks', { event_types: ['step_completed'], agent_id: 'worker' });
    const append = async (event_type: 'step_started' | 'step_completed', n: number) => {
      const outcome = await writer.commit('ws', { reads: [], writes: [], events: [rawEvent(event_type, n)] });
      expect(outcome.ok).toBe(true);
    };
    for (let n = 1; n <= retention; n++) await append('step_started', n);
    await append('step_completed', retention + 1);
    // The first answer holds it: a wait that slept on would answer empty at its timeout.
    const first = await callJson<Waited>(watcher, 'waitForEvents', { timeout: 5 });
    expect(stepsCompleted(first).map((e) => e.source_step_id)).toEqual([`step_${retention + 1}`]);
  });
});

/** A small event of the worker's, outside any plan: bigEvent without its 100 KB result. */
const rawEvent = (event_type: 'step_started' | 'step_completed', n: number): NewEvent =>
  bigEvent(n, { event_type, source_agent: 'worker', source_plan_id: null, source_plan_title: null, payload: {} });

/** A wait's scan of the log is work the agent pays for, as getTaskEvents' is: 1 unit of its call budget per 100. */
describe("waitForEvents' cost", () => {
  const open = watcherOnANode();

  it('ends an answer at about 1 MiB of events and returns the rest from the next calls', async () => {
    const { harness, watcher } = await open('memory', { approvalPolicy: 'auto' });
    await callJson(watcher, 'subscribeToTasks', { event_types: ['step_completed'], agent_id: 'worker' });
    const { store } = harness.server.services;
    const big = (n: number) => bigEvent(n, { source_agent: 'worker' });
    for (let n = 1; n <= 30; n++)
      expect(await store.commit('ws', { reads: [], writes: [], events: [big(n)] })).toMatchObject({ ok: true });
    const seen: string[] = [];
    for (let call = 0; call < 10 && seen.length < 30; call++) {
      const answer = await callJson<Waited>(watcher, 'waitForEvents', { timeout: 0, limit: 100 });
      expect(answer.events.length).toBeLessThanOrEqual(10);
      seen.push(...answer.events.map((e) => e.source_step_id ?? ''));
    }
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => `step_${i + 1}`));
  });

  it('charges the log entries it looked at to the agent, so its next calls wait', async () => {
    // 12 units per 6 s window for the agent.
    const { harness, watcher } = await open('memory', {
      approvalPolicy: 'auto',
      limits: { callsPerSecond: 2, rateWindowSeconds: 6 },
    });
    const { store } = harness.server.services;
    for (let batch = 0; batch < 15; batch++) {
      const events = Array.from({ length: 100 }, (_, i) => rawEvent('step_started', batch * 100 + i));
      expect(await store.commit('ws', { reads: [], writes: [], events })).toMatchObject({ ok: true });
    }
    // Nothing matches (no subscriptions): the wait looks at all 1,500 entries, 15 units on top of its own.
    expect(await callJson<Waited>(watcher, 'waitForEvents', { timeout: 0 })).toMatchObject({ count: 0 });
    const next = await callRaw(watcher, 'getWorkspace', {});
    expect(next.isError).toBe(true);
    expect(refusalOf(next)).toMatch(/^RESOURCE_EXHAUSTED: /);
  });
});
