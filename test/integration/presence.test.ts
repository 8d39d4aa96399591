import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { createServer, type PlanHubServer } from '@planhub/server';
import { inject, afterEach, describe, expect, it } from 'vitest';
import { uniquePrefix, STORE_KINDS } from '../helpers/servers.ts';
import { eventually } from '../helpers/eventually.ts';

/** Presence and stalls across two nodes of one store: events in the log and flags in getWorkspace. */
describe.each(STORE_KINDS)('presence and stalls on two nodes (%s store)', (kind) => {
  const nodes: PlanHubServer[] = [];
  const clients: PlanHubClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    for (const n of nodes.splice(0).reverse()) await n.close();
  });

  const twoNodes = async (config: { stallAfterMs?: number } = {}) => {
    const shared = kind === 'redis' ? { redisUrl: inject('redisUrl'), redisPrefix: uniquePrefix() } : {};
    const first = createServer({
      port: 0,
      logLevel: 'silent',
      approvalPolicy: 'auto',
      presenceHeartbeatMs: 100,
      ...shared,
      ...config,
    });
    const deps = kind === 'memory' ? { store: first.services.store } : {};
    const second = createServer(
      { port: 0, logLevel: 'silent', approvalPolicy: 'auto', presenceHeartbeatMs: 100, ...shared, ...config },
      deps,
    );
    nodes.push(second, first);
    const urls = [(await first.listen()).url, (await second.listen()).url];
    const client = async (agentId: string, node: number, role?: 'dashboard' | 'user') => {
      const c = await connect({ url: urls[node]!, agentId, workspace: 'ws', ...(role ? { role } : {}) });
      clients.push(c);
      return c;
    };
    return { client };
  };
  const presenceEvents = (reader: PlanHubClient) =>
    reader.getTaskEvents({ event_types: ['agent_online', 'agent_offline'], limit: 100 });

  it('reports an agent online on its first connection and offline after its last, whichever node it used', async () => {
    const { client } = await twoNodes();
    const board = await client('board', 1, 'dashboard');
    const worker = await client('worker', 0);
    await worker.createPlan({ title: 'Work', steps: ['one'] });
    const second = await client('worker', 1);
    await eventually(async () => {
      const ws = await board.getWorkspace({});
      expect(ws.agents.find((a) => a.agent_id === 'worker')).toMatchObject({ online: true });
    });
    second.close();
    await eventually(async () => {
      const ws = await board.getWorkspace({});
      expect(ws.agents.find((a) => a.agent_id === 'worker')?.last_seen_at).not.toBeNull();
    });
    expect((await presenceEvents(board)).events.map((e) => e.event_type)).toEqual(['agent_online']);
    worker.close();
    await eventually(async () => {
      const { events } = await presenceEvents(board);
      expect(events.map((e) => [e.event_type, e.source_agent])).toEqual([
        ['agent_online', 'worker'],
        ['agent_offline', 'worker'],
      ]);
    });
    const agent = (await board.getWorkspace({})).agents.find((a) => a.agent_id === 'worker');
    expect(agent?.online).toBe(false);
    expect(agent?.last_seen_at).toEqual(expect.any(String));
  });

  it('flags a step in progress with no update as stalled and reports it once, by one of the nodes', async () => {
    const { client } = await twoNodes({ stallAfterMs: 50 });
    const board = await client('board', 1, 'dashboard');
    await client('board-2', 0, 'dashboard');
    const worker = await client('worker', 0);
    await worker.createPlan({ title: 'Slow', steps: ['think'] });
    await worker.startPlan({});
    await worker.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    await eventually(async () => {
      const { events } = await board.getTaskEvents({ event_types: ['step_stalled'], limit: 10 });
      expect(events.length).toBeGreaterThan(0);
    });
    const step = (await board.getWorkspace({})).agents[0]?.plans[0]?.steps[0];
    expect(step).toMatchObject({ status: 'in_progress', stalled: true });
    const { events } = await board.getTaskEvents({ event_types: ['step_stalled'], limit: 10 });
    expect(events.map((e) => [e.source_step_id, e.payload.stall_after_ms])).toEqual([['step_1', 50]]);
  });

  it('lists the workspaces it has seen to dashboards and refuses agents', async () => {
    const { client } = await twoNodes();
    const board = await client('board', 0, 'dashboard');
    await client('someone', 1);
    expect((await board.listWorkspaces({})).workspaces).toContain('ws');
    const agent = await client('agent', 0);
    await expect(agent.listWorkspaces({})).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
  });
});
