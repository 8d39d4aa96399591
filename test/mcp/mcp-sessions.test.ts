import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, LoggingMessageNotification, Progress } from '@modelcontextprotocol/sdk/types.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { PlanHubServer } from '@planhub/server';
import { createMemoryStore, createServer } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { holdingCommits } from '../helpers/held-commits.ts';
import { callJson, endpointOf, mcpClient, refusalOf, textOf } from './mcp-clients.ts';
import { initializeRequest, initializeWithHeaders, listToolsRequest, rawMcp } from './raw-mcp.ts';

interface Waited {
  events: { event_type: string; source_plan_id: string }[];
  last_event_id: string;
}

const errorOf = (text: string) => (JSON.parse(text) as { error: { message: string } }).error.message;

describe('MCP sessions', () => {
  let server: PlanHubServer | undefined;
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await server?.close();
  });
  const start = async (clock?: () => number) => {
    server = createServer(
      { port: 0, logLevel: 'silent', approvalPolicy: 'auto' },
      clock ? { mcp: { idleMs: 60_000, now: clock } } : {},
    );
    return (await server.listen()).url;
  };

  it('closes a session idle for longer than the idle time, and its next request is told to start over', async () => {
    let now = 1_000_000;
    const url = await start(() => now);
    const endpoint = endpointOf(url, { workspace: 'team', agentId: 'sleepy' });
    const opened = await rawMcp(endpoint, initializeRequest);
    const session = { 'mcp-session-id': opened.sessionId ?? '' };
    now += 59_000;
    expect((await rawMcp(endpoint, listToolsRequest, session)).status).toBe(200);
    now += 61_000;
    const expired = await rawMcp(endpoint, listToolsRequest, session);
    expect(expired.status).toBe(404);
    expect(errorOf(expired.text)).toMatch(/^NOT_FOUND: MCP session not found .*initialize a new session/);
  });

  it('ends a session on DELETE', async () => {
    const url = await start();
    const transport = new StreamableHTTPClientTransport(endpointOf(url, { workspace: 'team', agentId: 'done' }));
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(transport);
    const sessionId = transport.sessionId ?? '';
    await transport.terminateSession();
    const after = await rawMcp(endpointOf(url, { workspace: 'team', agentId: 'done' }), listToolsRequest, {
      'mcp-session-id': sessionId,
    });
    expect(after.status).toBe(404);
    await client.close();
  });

  it('refuses an open-mode session that does not name its agent, or asks for an unknown dialect', async () => {
    const url = await start();
    const anonymous = await rawMcp(new URL('/mcp?workspace=team', url), initializeRequest);
    expect(anonymous.status).toBe(401);
    expect(errorOf(anonymous.text)).toMatch(/^UNAUTHENTICATED: Name the agent in the endpoint URL/);
    const odd = await rawMcp(
      endpointOf(url, { workspace: 'team', agentId: 'a', dialects: '000,999' }),
      initializeRequest,
    );
    expect(odd.status).toBe(400);
    expect(errorOf(odd.text)).toMatch(
      /^INVALID_ARGUMENT: Unknown dialect "999".*Valid: 000, 001, 002, 003, 004, planhub/,
    );
  });

  it('gives several sessions of one host distinct agents in one workspace', async () => {
    const url = await start();
    const agents = ['parent', 'sub-1', 'sub-2'];
    for (const agentId of agents) {
      const client = await mcpClient('http', url, { workspace: 'team', agentId });
      clients.push(client);
      await callJson(client, 'createPlan', { title: `Plan of ${agentId}`, steps: ['s'] });
    }
    const view = await callJson<{ agents: { agent_id: string }[] }>(clients[0] as Client, 'getWorkspace', {});
    expect(view.agents.map((a) => a.agent_id).sort()).toEqual(agents);
  });

  it('sends matching events as MCP log notifications to a host that listens', async () => {
    const url = await start();
    const watcher = await mcpClient('http', url, { workspace: 'team', agentId: 'watcher' });
    clients.push(watcher);
    const seen: LoggingMessageNotification['params'][] = [];
    watcher.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void seen.push(n.params));
    await callJson(watcher, 'subscribeToTasks', { event_types: ['plan_created'] });
    const worker = await mcpClient('http', url, { workspace: 'team', agentId: 'worker' });
    clients.push(worker);
    const { plan_id } = await callJson<{ plan_id: string }>(worker, 'createPlan', { title: 'Work', steps: ['s'] });
    await expect.poll(() => seen.length).toBeGreaterThan(0);
    expect(seen[0]).toMatchObject({
      level: 'info',
      logger: 'planhub/events',
      data: { event_type: 'plan_created', source_agent: 'worker', source_plan_id: plan_id },
    });
    // The notification is advisory: waitForEvents still hands the event to the model.
    const { events } = await callJson<{ events: { event_type: string }[] }>(watcher, 'waitForEvents', { timeout: 0 });
    expect(events.map((e) => e.event_type)).toEqual(['plan_created']);
  });

  it('resumes waitForEvents in a new session from the last_event_id of the old one', async () => {
    const url = await start();
    const spec = { workspace: 'team', agentId: 'watcher' };
    const first = await mcpClient('http', url, spec);
    const worker = await mcpClient('http', url, { workspace: 'team', agentId: 'worker' });
    clients.push(first, worker);
    await callJson(first, 'subscribeToTasks', { event_types: ['plan_created'] });
    const one = await callJson<{ plan_id: string }>(worker, 'createPlan', { title: 'One', steps: ['s'] });
    const seen = await callJson<Waited>(first, 'waitForEvents', { timeout: 30 });
    expect(seen.events.map((e) => e.source_plan_id)).toEqual([one.plan_id]);
    await callJson(worker, 'completePlan', { status: 'cancelled' });
    const two = await callJson<{ plan_id: string }>(worker, 'createPlan', { title: 'Two', steps: ['s'] });

    const second = await mcpClient('http', url, spec);
    clients.push(second);
    // A new session starts at the log's head; the old session's cursor brings back what came in between.
    expect((await callJson<Waited>(second, 'waitForEvents', { timeout: 0 })).events).toEqual([]);
    const resumed = await callJson<Waited>(second, 'waitForEvents', { timeout: 0, after_event: seen.last_event_id });
    expect(resumed.events.map((e) => e.source_plan_id)).toEqual([two.plan_id]);
  });

  it('reports progress while waitForEvents waits, for hosts that reset their timeout on progress', async () => {
    const url = await start();
    const watcher = await mcpClient('http', url, { workspace: 'team', agentId: 'watcher' });
    const worker = await mcpClient('http', url, { workspace: 'team', agentId: 'worker' });
    clients.push(watcher, worker);
    await callJson(watcher, 'subscribeToTasks', { event_types: ['plan_created'] });
    const progress: Progress[] = [];
    let waiting = () => {};
    const started = new Promise<void>((resolve) => (waiting = resolve));
    const wait = watcher.callTool({ name: 'waitForEvents', arguments: { timeout: 30 } }, undefined, {
      onprogress: (p) => {
        progress.push(p);
        waiting();
      },
      resetTimeoutOnProgress: true,
    });
    await started;
    await callJson(worker, 'createPlan', { title: 'Wake up', steps: ['s'] });
    const result = (await wait) as CallToolResult;
    expect(JSON.parse(textOf(result))).toMatchObject({ count: 1, events: [{ event_type: 'plan_created' }] });
    expect(progress[0]).toMatchObject({ progress: 0, total: 30 });
  });

  it('shuts down with MCP hosts connected and a waitForEvents in progress', async () => {
    const url = await start();
    const watcher = await mcpClient('http', url, { workspace: 'team', agentId: 'watcher' });
    clients.push(watcher);
    let waiting = () => {};
    const started = new Promise<void>((resolve) => (waiting = resolve));
    const wait = watcher.callTool({ name: 'waitForEvents', arguments: { timeout: 30 } }, undefined, {
      onprogress: () => waiting(),
    });
    await started;
    await server?.close();
    const settled = await wait.then(
      (result) => refusalOf(result as CallToolResult),
      (err: unknown) => String(err),
    );
    expect(settled).toMatch(/^UNAVAILABLE: This MCP session closed while the call was waiting/);
  });

  // A call whose work ended as the drain did was answered "closed while the call was waiting … Call again" too, though
  // it was applied: its answer was still on its way back when the session closed, and a host called again.
  it('answers a call doing work at shutdown with its result, not "call again"', async () => {
    const held = holdingCommits(createMemoryStore({ eventRetention: 1000 }));
    const node = createServer({ port: 0, logLevel: 'silent', approvalPolicy: 'auto' }, { store: held.store });
    server = node;
    const { url } = await node.listen();
    const host = await mcpClient('http', url, { workspace: 'team', agentId: 'worker' });
    clients.push(host);

    const hold = held.holdNext((commit) => JSON.stringify(commit).includes('made during shutdown'));
    const call = host.callTool({ name: 'createPlan', arguments: { title: 'made during shutdown', steps: ['a'] } });
    await hold.reached;
    const closing = node.close();
    // The drain has begun (the node stops taking calls at once); the held commit now ends the call's work.
    await new Promise((resolve) => setImmediate(resolve));
    hold.release();
    const result = (await call) as CallToolResult;
    await closing;
    server = undefined;
    expect(refusalOf(result)).toBe('');
    expect(JSON.parse(textOf(result))).toMatchObject({ title: 'made during shutdown', status: 'pending' });
    const events = await held.store.readEvents('team', { count: 100 });
    expect(events.filter((e) => e.event_type === 'plan_created')).toHaveLength(1);
  });

  it('refuses cross-origin requests and, in open mode, host names that are not loopback (DNS rebinding)', async () => {
    const url = await start();
    const endpoint = endpointOf(url, { workspace: 'team', agentId: 'a' });
    const port = new URL(url).port;
    expect(await initializeWithHeaders(endpoint, { origin: 'http://evil.example' })).toBe(403);
    expect(await initializeWithHeaders(endpoint, { host: `rebound.example:${port}` })).toBe(403);
    expect(await initializeWithHeaders(endpoint, { origin: `http://127.0.0.1:${port}` })).toBe(200);
    expect(await initializeWithHeaders(endpoint, { host: `localhost:${port}` })).toBe(200);
  });
});
