import { request, type IncomingMessage } from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LATEST_PROTOCOL_VERSION, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createServer, type PlanHubServer } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { bigEvent } from '../helpers/big-event.ts';
import { eventually } from '../helpers/eventually.ts';
import { callJson, endpointOf, mcpClient } from '../mcp/mcp-clients.ts';
import { initializeRequest, rawMcp } from '../mcp/raw-mcp.ts';
import { captureLog } from './support/capture-log.ts';

const MIB = 1024 * 1024;
const SUBSCRIBE = { agent_id: '*', event_types: ['step_completed'] };

/** A raw MCP session subscribed to every step_completed, and its GET event stream, opened and never read. */
const stalledSession = async (url: string) => {
  const endpoint = endpointOf(url, { workspace: 'team', agentId: 'stalled' });
  const opened = await rawMcp(endpoint, initializeRequest);
  const headers = { 'mcp-session-id': opened.sessionId ?? '', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
  const call = {
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'subscribeToTasks', arguments: SUBSCRIBE },
  };
  expect((await rawMcp(endpoint, call, headers)).text).toMatch(/subscription_id/);
  // No 'data' listener: Node's client stops reading the socket once its small buffer is full, as a stalled host does.
  const stream = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(endpoint, {
      method: 'GET',
      agent: false,
      headers: { accept: 'text/event-stream', ...headers },
    });
    req.on('response', resolve).on('error', reject).end();
  });
  expect(stream.statusCode).toBe(200);
  /** Reads the stream from now on: resolves with the bytes read once the node ended it. */
  const drain = () =>
    new Promise<number>((resolve) => {
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
      stream.on('close', () => resolve(bytes)).on('error', () => resolve(bytes));
    });
  const post = (body: unknown) => rawMcp(endpoint, body, headers);
  return { drain, post };
};

/** An official client subscribed the same way, counting the event notifications its GET stream brings. */
const readingSession = async (url: string) => {
  const client = await mcpClient('http', url, { workspace: 'team', agentId: 'reader' });
  const seen = new Set<string>();
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    const event = n.params.data as { event_id?: string };
    if (n.params.logger === 'planhub/events' && event.event_id !== undefined) seen.add(event.event_id);
  });
  await callJson(client, 'subscribeToTasks', SUBSCRIBE);
  return { client, seen };
};

/**
 * A GET event stream whose client stops reading used to grow without bound (every notification waited in the SDK's
 * stream) and, counted as a request in progress, kept its session from ever expiring.
 */
describe('an MCP event stream its client does not read', () => {
  let server: PlanHubServer | undefined;
  let clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close()));
    clients = [];
    await server?.close();
  });

  const start = async (outboundBytes: number, now?: () => number, outboundBytesPerAddress?: number) => {
    const capture = captureLog();
    server = createServer(
      { port: 0, limits: { outboundBytes, ...(outboundBytesPerAddress ? { outboundBytesPerAddress } : {}) } },
      { log: capture.log, ...(now ? { mcp: { idleMs: 60_000, now } } : {}) },
    );
    const { url } = await server.listen();
    const commitEvents = async (count: number) => {
      const committed: string[] = [];
      for (let n = 1; n <= count; n++) {
        const outcome = await server!.services.store.commit('team', {
          reads: [],
          writes: [],
          events: [bigEvent(n, { workspace: 'team' })],
        });
        if (outcome.ok) committed.push(...outcome.events.map((e) => e.event_id));
        // Commits come from other agents' calls, over the network: readers get turns to read between them.
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      return committed;
    };
    return { url, capture, commitEvents };
  };

  it('is closed once past outboundBytes, holding no more than that; a stream that is read gets every event', async () => {
    const { url, capture, commitEvents } = await start(MIB);
    const stalled = await stalledSession(url);
    const reader = await readingSession(url);
    clients.push(reader.client);

    // 20 MB of events: far past the kernel's socket buffers and the limit.
    const committed = await commitEvents(200);

    const cut = () => capture.lines.filter((l) => /GET event stream was closed/.test(l.msg));
    await eventually(() => expect(cut().length).toBeGreaterThan(0));
    expect(cut()[0]).toMatchObject({ level: 40, agent_id: 'stalled' });
    // Checked before each notification: at most one event (~100 KB and its framing) past the limit was queued.
    expect(cut()[0]?.queued_bytes).toBeGreaterThan(MIB);
    expect(cut()[0]?.queued_bytes).toBeLessThanOrEqual(MIB + 110_000);
    // What was queued was dropped with the stream: read again, it ends after a fraction of the 20 MB.
    const read = await stalled.drain();
    expect(read).toBeLessThan(12 * MIB);

    // The reading session was not cut (one stream was) and got every event.
    await eventually(() => expect(reader.seen.size).toBe(committed.length));
    expect(cut()).toHaveLength(1);
    expect((await reader.client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('is closed once its address holds more than outboundBytesPerAddress, each stream under its own limit', async () => {
    // Only the address's total (2 MiB) can cut: each stream may hold 64 MiB.
    const { url, capture, commitEvents } = await start(64 * MIB, undefined, 2 * MIB);
    const stalled = [];
    for (let i = 0; i < 4; i++) stalled.push(await stalledSession(url));
    const reader = await readingSession(url);
    clients.push(reader.client);

    const committed = await commitEvents(100);

    const cut = () => capture.lines.filter((l) => /GET event stream was closed/.test(l.msg));
    await eventually(() => expect(cut().length).toBeGreaterThanOrEqual(3));
    for (const line of cut())
      expect(line.msg).toMatch(/past the limit of 2097152 for one address \(outboundBytesPerAddress\)/);
    // The reading session, from the same address, holds next to nothing: it was not cut and got every event.
    await eventually(() => expect(reader.seen.size).toBe(committed.length));
    expect(cut().length).toBeLessThanOrEqual(4);
    expect((await reader.client.listTools()).tools.length).toBeGreaterThan(0);
    // A cut stream's session lives on: its calls are answered.
    const listTools = { jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} };
    expect((await stalled[0]!.post(listTools)).status).toBe(200);
  });

  it('no longer keeps its session alive once it stalls; a stream that is read still does', async () => {
    let clock = 1_000_000;
    // A limit the stalled stream never reaches: only the idle rule can end its session.
    const { url, commitEvents } = await start(256 * MIB, () => clock);
    const stalled = await stalledSession(url);
    const reader = await readingSession(url);
    clients.push(reader.client);
    const committed = await commitEvents(150);
    await eventually(() => expect(reader.seen.size).toBe(committed.length));

    // Each round moves the clock past the idle time and lets a request (any, even a refused one) run the sweep.
    const listTools = { jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} };
    let answer = await stalled.post(listTools);
    for (let round = 0; round < 5 && answer.status !== 404; round++) {
      clock += 61_000;
      await fetch(new URL('/mcp', url));
      answer = await stalled.post(listTools);
    }
    expect(answer.status).toBe(404);
    expect(answer.text).toMatch(/MCP session not found/);
    // The session whose stream is read made no request all that time, and is still there.
    expect((await reader.client.listTools()).tools.length).toBeGreaterThan(0);
  });
});
