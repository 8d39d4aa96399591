import type { EventEnvelope } from '@planhub/client-sdk';
import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { eventLog, recordEvents, startedPlan, type EventLog } from '../helpers/event-log.ts';
import { eventually } from '../helpers/eventually.ts';
import { rounds } from '../helpers/stress.ts';
import { parsePrometheus, valueOf } from '../ops/prometheus-text.ts';
import { startHaproxy, type Balancer } from './haproxy.ts';

const WS = 'lb';
const compareIds = (a: string, b: string) => {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
};

/**
 * What the dashboard page does, over a bare socket.io client: role dashboard, websocket only, socket.io's own
 * reconnection (through the balancer), and on every (re)connect a subscription resuming after the last event seen.
 */
const dashboardClient = (url: string, onEvent: (e: EventEnvelope) => void) => {
  const socket: Socket = io(url, {
    transports: ['websocket'],
    auth: { workspace: WS, agent_id: 'wall-screen', role: 'dashboard' },
    reconnectionDelay: 100,
    reconnectionDelayMax: 1000,
  });
  let last: string | undefined;
  let connects = 0;
  socket.on('event', (event: EventEnvelope) => {
    if (last !== undefined && compareIds(event.event_id, last) <= 0) return;
    last = event.event_id;
    onEvent(event);
  });
  socket.on('connect', () => {
    connects += 1;
    void socket.timeout(10_000).emitWithAck('call', {
      tool: 'subscribeToTasks',
      args: {
        agent_id: 'worker',
        event_types: ['step_started', 'step_completed', 'plan_completed'],
        after_event: last ?? '0-0',
      },
    });
  });
  return { socket, connects: () => connects };
};

const scrape = async (url: string) => parsePrometheus(await (await fetch(`${url}/metrics`)).text()).samples;

describe('two nodes behind HAProxy (deploy/haproxy.cfg) when one is SIGKILLed', () => {
  let cluster: Cluster;
  let lb: Balancer;
  const clients: PlanHubClient[] = [];
  let dashboard: ReturnType<typeof dashboardClient> | undefined;

  beforeAll(async () => {
    cluster = await startCluster({ nodes: 2, env: { PLANHUB_APPROVAL_POLICY: 'auto' } });
    const [a, b] = cluster.urls.map((u) => new URL(u).host) as [string, string];
    lb = await startHaproxy([a, b]);
  }, 120_000);
  afterAll(async () => {
    for (const c of clients) c.close();
    dashboard?.socket.close();
    await lb?.close();
    await cluster?.close();
  });

  const client = async (agentId: string, role: 'agent' | 'user') => {
    const c = await connect({ url: lb.url, workspace: WS, agentId, role });
    clients.push(c);
    return c;
  };

  it('serves the dashboard page through the balancer, and / leads to it', async () => {
    const page = await fetch(`${lb.url}/dashboard`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);
    expect((await fetch(lb.url, { redirect: 'manual' })).headers.get('location')).toBe('/dashboard');
  });

  it('keeps the work going through the other node with every event delivered once, in order', async () => {
    const worker = await client('worker', 'agent');
    const watcher = await client('watcher', 'user');
    const seen = recordEvents(watcher);
    let watcherReconnects = 0;
    watcher.on('reconnected', () => (watcherReconnects += 1));
    await watcher.subscribeToTasks({
      agent_id: 'worker',
      event_types: ['step_started', 'step_completed', 'plan_completed'],
    });
    const board: EventLog = eventLog((listener) => {
      dashboard = dashboardClient(lb.url, listener);
      return () => dashboard?.socket.close();
    });
    await eventually(() => expect(dashboard?.connects()).toBe(1));

    // The victim is the node the watcher (the only `user` connection) landed on, so the subscriber has to resume.
    let victim = -1;
    await eventually(async () => {
      const users = await Promise.all(
        cluster.urls.map(async (u) => valueOf(await scrape(u), 'planhub_connections', { role: 'user' })),
      );
      victim = users.findIndex((n) => n === 1);
      expect(users.filter((n) => n === 1)).toHaveLength(1);
    });
    const survivor = 1 - victim;

    const STEPS = rounds(24);
    await startedPlan(
      worker,
      'Behind the balancer',
      Array.from({ length: STEPS }, (_, i) => `step ${i + 1}`),
    );
    const work = (async () => {
      for (let i = 1; i <= STEPS; i++) {
        await worker.setStepStatus({ step_id: `step_${i}`, status: 'in_progress' });
        await worker.setStepStatus({ step_id: `step_${i}`, status: 'completed' });
      }
      await worker.completePlan({ status: 'completed' });
    })();
    await seen.next(() => seen.events.length >= 6);
    await cluster.kill(victim);
    expect((await fetch(`${lb.url}/dashboard`)).status).toBe(200);
    await work;
    await seen.next((e) => e.event_type === 'plan_completed');
    await board.next((e) => e.event_type === 'plan_completed');

    // The truth: the workspace log, read through the balancer (so from the survivor).
    const reader = await client('reader', 'user');
    const all: EventEnvelope[] = [];
    for (let after = '0-0'; ;) {
      const page = await reader.getTaskEvents({ after_event: after, limit: 500 });
      if (page.events.length === 0) break;
      all.push(...page.events);
      after = page.events.at(-1)?.event_id as string;
    }
    const expected = all
      .filter((e) => e.source_agent === 'worker' && /^(step_started|step_completed|plan_completed)$/.test(e.event_type))
      .map((e) => e.event_id);
    expect(expected).toHaveLength(2 * STEPS + 1);
    const watcherIds = seen.events.map((e) => e.event_id);
    expect(watcherIds).toEqual(expected);
    expect(board.events.map((e) => e.event_id)).toEqual(expected);
    expect(watcherReconnects).toBeGreaterThanOrEqual(1);
    expect(dashboard?.connects()).toBeGreaterThanOrEqual(1);
    expect(cluster.isRunning(victim)).toBe(false);
    expect(cluster.isRunning(survivor)).toBe(true);
    // Everything now runs on the survivor.
    expect(valueOf(await scrape(cluster.urls[survivor] as string), 'planhub_connections', { role: 'user' })).toBe(2);
  });
});
