import { connect, type PlanHubClient } from '@planhub/client-sdk';
import type { EventEnvelope } from '@planhub/shared';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REDIS_BACKENDS, startCluster, type Cluster } from '../helpers/cluster.ts';

const HEARTBEAT_MS = 300;
/** The dead node's agents that never come back: reporting them keeps the taker's sweep busy a while. */
const GONE = Array.from({ length: 150 }, (_, i) => `gone-${String(i).padStart(3, '0')}`);
/** The dead node's agents that come back on the taker while it reports the dead node, and keep calling. */
const BACK = ['worker-1', 'worker-2', 'worker-3', 'worker-4'];

const offlineOf = (events: readonly EventEnvelope[]) =>
  events
    .filter((e) => e.event_type === 'agent_offline')
    .map((e) => [e.source_agent, (e.payload as { reason?: string }).reason])
    .sort();

/**
 * A dead node's taker decides each of its agents offline on the registrations current when it decides: an agent
 * that reconnected to the taker itself meanwhile was never offline. Its registration used to wait behind the sweep
 * that reports the dead node, so the sweep decided on entries written before it: agent_offline (node_lost), then
 * agent_online a moment later, for an agent that was connected and calling all along. Node 0 is paused while node 1
 * dies and the agents dial node 0, so its sweep and their connections arrive together, as on a loaded machine.
 */
describe.each(REDIS_BACKENDS)('presence of agents back on the taker while it reports a dead node (%s)', (backend) => {
  let cluster: Cluster;
  const clients: PlanHubClient[] = [];
  beforeAll(async () => {
    cluster = await startCluster({
      backend,
      nodes: 2,
      env: { PLANHUB_APPROVAL_POLICY: 'auto', PLANHUB_PRESENCE_HEARTBEAT_MS: String(HEARTBEAT_MS) },
    });
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    if (cluster.isRunning(0)) cluster.signal(0, 'SIGCONT');
    await cluster.close();
  });

  // Two waits of up to 30 s each and a few heartbeats: a slow run fails on what it waited for, not on the clock.
  it('reports only the agents that did not come back, and no agent_offline for those calling on', async () => {
    const on = async (node: number, agentId: string) => {
      const c = await connect({ url: cluster.urls[node]!, agentId, workspace: 'ws', timeoutMs: 30_000 });
      clients.push(c);
      return c;
    };
    const board = await cluster.client('board', { node: 0, role: 'dashboard' });
    const presence = async () =>
      (await board.getTaskEvents({ event_types: ['agent_online', 'agent_offline'], limit: 500 })).events;
    // The board's calls are rate limited like any caller's: it polls no faster than this.
    const until = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 30_000, interval: 100 });
    // Connected first, so the taker reports them before the agents that come back (it reports a node's agents in
    // the order their entries are stored).
    const gone = await Promise.all(GONE.map((id) => on(1, id)));
    const before = await Promise.all(BACK.map((id) => on(1, id)));
    await until(async () =>
      expect((await presence()).filter((e) => e.event_type === 'agent_online')).toHaveLength(GONE.length + BACK.length),
    );

    cluster.signal(0, 'SIGSTOP');
    await cluster.kill(1);
    for (const c of [...gone, ...before]) c.close();
    // Dialled while node 0 is paused: their handshakes wait in its socket backlog. Node 1's heartbeat lapses.
    const dialled = BACK.map((id) => on(0, id));
    await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS * 5));
    cluster.signal(0, 'SIGCONT');
    const back = await Promise.all(dialled);
    let calling = true;
    const calls = back.map(async (c) => {
      while (calling) {
        await c.getWorkspace({});
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    // Settled whatever happens, so a failed assertion leaves no rejection behind.
    const answered = Promise.allSettled(calls);

    await until(async () =>
      expect(offlineOf(await presence()).filter(([id]) => GONE.includes(id as string))).toHaveLength(GONE.length),
    );
    // Another sweep or two, for any report still on its way.
    await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS * 3));
    calling = false;
    for (const result of await answered) expect(result).toMatchObject({ status: 'fulfilled' });
    const after = await presence();
    expect(offlineOf(after), `node 0's log:\n${cluster.output(0)}`).toEqual(GONE.map((id) => [id, 'node_lost']));
    // Said online once each, before node 1 died: never said offline, so never said online again.
    for (const id of BACK)
      expect(after.filter((e) => e.source_agent === id).map((e) => e.event_type)).toEqual(['agent_online']);
  }, 90_000);
});
