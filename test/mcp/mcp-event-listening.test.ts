import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ServerConfigInput } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { STORE_KINDS } from '../helpers/servers.ts';
import { watchCountedNode, type WatchCountedNode } from '../helpers/watch-counting-store.ts';
import { callJson, mcpClient } from './mcp-clients.ts';

/**
 * An MCP session listens to its workspace's events (for its host's notifications) only once it has something to
 * notify: a subscription, or a call that may leave its agent's plan awaiting a person's decision. A session that
 * only works (plans, steps) under the auto policy does not make its node follow the workspace.
 */
describe.each(STORE_KINDS)('what an MCP session listens to (%s store)', (kind) => {
  let node: WatchCountedNode | undefined;
  const sessions: Client[] = [];
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((c) => c.close()));
    await node?.close();
    node = undefined;
  });

  const start = async (config: ServerConfigInput) => {
    node = await watchCountedNode(kind, config);
    const { url, socket } = node;
    const session = async (agentId: string) => {
      const client = await mcpClient('http', url, { workspace: 'team', agentId });
      sessions.push(client);
      return client;
    };
    return { counts: node.counts, session, socket: (agentId: string, role?: 'user') => socket(agentId, 'team', role) };
  };

  it('does not listen while its agent only works under the auto policy', async () => {
    const { counts, session } = await start({ approvalPolicy: 'auto' });
    const agent = await session('worker');
    await callJson(agent, 'createPlan', { title: 'Work', steps: ['one', 'two'] });
    expect(await callJson(agent, 'startPlan', {})).toMatchObject({ status: 'in_progress' });
    await callJson(agent, 'setStepStatus', { step_id: 'step_1', status: 'completed' });
    await callJson(agent, 'getWorkspace', {});
    expect(counts).toEqual({ watched: 0, open: 0 });
    // A later session of the agent finds its plan running, with no decision to wait for: still nothing to follow.
    await session('worker');
    expect(counts).toEqual({ watched: 0, open: 0 });
  });

  it('listens from its first subscription, and from the start when its agent already has one', async () => {
    const { counts, session } = await start({ approvalPolicy: 'auto' });
    const first = await session('watcher');
    expect(counts.watched).toBe(0);
    await callJson(first, 'subscribeToTasks', { event_types: ['plan_created'] });
    expect(counts).toEqual({ watched: 1, open: 1 });
    await (first.transport as StreamableHTTPClientTransport).terminateSession();
    await poll(() => counts.open).toBe(0);
    // The subscription is stored with the agent: a later session of it listens as soon as it opens.
    await session('watcher');
    expect(counts).toEqual({ watched: 2, open: 1 });
  });

  it("listens from a call that asks for a person's decision, and notifies its host of the decision", async () => {
    const { counts, session, socket } = await start({ approvalPolicy: 'owner-or-user' });
    const agent = await session('worker');
    const seen: LoggingMessageNotification['params'][] = [];
    agent.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void seen.push(n.params));
    const { plan_id } = await callJson<{ plan_id: string }>(agent, 'createPlan', { title: 'Work', steps: ['s'] });
    expect(counts.watched).toBe(0);
    expect(await callJson(agent, 'startPlan', {})).toMatchObject({ plan_id, status: 'awaiting_approval' });
    expect(counts).toEqual({ watched: 1, open: 1 });
    const user = await socket('alice', 'user');
    await user.plan_approve({ plan_id });
    await poll(() => seen.map((n) => (n.data as { event_type?: string }).event_type)).toContain('plan_approved');
  });

  it('listens from its start when its agent has a plan awaiting a decision, put up before it began', async () => {
    const { session, socket } = await start({ approvalPolicy: 'owner-or-user' });
    // Put up by the same agent over a socket (a host that restarted, another client): no call of the session asks.
    const elsewhere = await socket('worker');
    const { plan_id } = await elsewhere.createPlan({ title: 'Work', steps: ['s'] });
    expect(await elsewhere.startPlan({ plan_id, wait: false })).toMatchObject({ status: 'awaiting_approval' });
    elsewhere.close();
    const agent = await session('worker');
    const seen: LoggingMessageNotification['params'][] = [];
    agent.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void seen.push(n.params));
    expect(await callJson(agent, 'getPlanStatus', { plan_id })).toMatchObject({ status: 'awaiting_approval' });
    const user = await socket('alice', 'user');
    await user.plan_approve({ plan_id });
    await poll(() => seen.map((n) => (n.data as { event_type?: string }).event_type)).toContain('plan_approved');
  });
});
