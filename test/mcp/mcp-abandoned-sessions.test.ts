import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PlanHubServer, ServerConfigInput } from '@planhub/server';
import { createServer, mintToken } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';
import { endpointOf, refusalOf } from './mcp-clients.ts';
import { initializeRequest, listToolsRequest, rawMcp } from './raw-mcp.ts';

const SECRET = 'mcp-abandoned-secret-0123456789';

/** A host whose client keeps no GET event stream (the node is told it has none: 405), so only requests show it. */
const withoutStream: typeof fetch = (input, init) =>
  init?.method === 'GET' ? Promise.resolve(new Response(null, { status: 405 })) : fetch(input, init);

interface Opened {
  client: Client;
  transport: StreamableHTTPClientTransport;
  id: string;
}

/**
 * Sessions left behind used to hold their caps for the whole idle time (30 minutes): 20 initializes of one token
 * locked its agent out, and 1,000 from 127.0.0.1 every local workspace. A full cap now ends a session left behind,
 * one that never got past its initialize expires after a minute, and a refusal says when to retry.
 */
describe('MCP sessions left behind', () => {
  let server: PlanHubServer | undefined;
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await server?.close();
    server = undefined;
  });

  let now = 1_000_000;
  const start = async (config: ServerConfigInput, mcp: { unusedMs?: number; newSessionMs?: number } = {}) => {
    now = 1_000_000;
    server = createServer({ port: 0, logLevel: 'silent', ...config }, { mcp: { ...mcp, now: () => now } });
    return (await server.listen()).url;
  };

  /** The official client, connected as a host is; `stream: false` for a host that keeps no event stream. */
  const open = async (endpoint: URL, options: { token?: string; stream?: boolean } = {}): Promise<Opened> => {
    const headers: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
    const transport = new StreamableHTTPClientTransport(endpoint, {
      requestInit: { headers },
      ...(options.stream === false ? { fetch: withoutStream } : {}),
    });
    const client = new Client({ name: 'abandoning-host', version: '1' });
    await client.connect(transport);
    clients.push(client);
    return { client, transport, id: transport.sessionId ?? '' };
  };

  /** 200 while the node holds session `id`, 404 once it ended it. */
  const statusOf = async (endpoint: URL, id: string, headers: Record<string, string> = {}) =>
    (await rawMcp(endpoint, listToolsRequest, { 'mcp-session-id': id, ...headers })).status;

  it('admits the 21st session of an agent whose host restarted, by ending its least recently active session', async () => {
    const url = await start({ secret: SECRET });
    const token = await mintToken(SECRET, { workspace: 'team', agent_id: 'restarting', role: 'agent' }, '10m');
    const endpoint = new URL('/mcp', url);
    const auth = { authorization: `Bearer ${token}` };
    // A host that restarted 20 times, a second apart: each time its client went away without a DELETE. (Without an
    // event stream: one that was open keeps its session until the node sees it close.)
    const left: string[] = [];
    for (let i = 0; i < 20; i++) {
      const host = await open(endpoint, { token, stream: false });
      left.push(host.id);
      await host.client.close();
      now += 1_000;
    }
    const restarted = await open(endpoint, { token });
    expect(restarted.id).not.toBe('');
    expect((await restarted.client.listTools()).tools.length).toBeGreaterThan(0);
    // The session ended for it was the first one left behind; the next ones are still there.
    expect(await statusOf(endpoint, left[0]!, auth)).toBe(404);
    expect(await statusOf(endpoint, left[1]!, auth)).toBe(200);
  });

  it('never ends a session with a request in progress or an open event stream; a refusal says when to retry', async () => {
    const url = await start({ limits: { connectionsPerAgent: 3 } });
    const endpoint = endpointOf(url, { workspace: 'team', agentId: 'busy' });
    // The oldest keeps its event stream open; the next has a waitForEvents in progress; the third is idle.
    const streaming = await open(endpoint);
    now += 1_000;
    const waiting = await open(endpoint, { stream: false });
    let waitStarted!: () => void;
    const started = new Promise<void>((resolve) => (waitStarted = resolve));
    const wait = waiting.client.callTool({ name: 'waitForEvents', arguments: { timeout: 5 } }, CallToolResultSchema, {
      onprogress: () => waitStarted(),
      timeout: 20_000,
    });
    // Awaited at the end; a test that fails before must not leave its rejection (the client closing) unhandled.
    wait.catch(() => undefined);
    await started;
    now += 1_000;
    const idle = await open(endpoint, { stream: false });
    expect((await idle.client.listTools()).tools.length).toBeGreaterThan(0);
    now += 10_000;

    // Full: the idle session is ended for the fourth, though the other two are older.
    const fourth = await open(endpoint, { stream: false });
    await expect(idle.client.listTools()).rejects.toThrow(/MCP session not found/);
    expect((await streaming.client.listTools()).tools.length).toBeGreaterThan(0);

    // Full again, and the only idle session is a second old: refused, with when to retry.
    now += 1_000;
    const refused = await rawMcp(endpoint, initializeRequest);
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('4');
    const error = (JSON.parse(refused.text) as { error: { message: string; data: unknown } }).error;
    expect(error.message).toMatch(
      /^RESOURCE_EXHAUSTED: Agent busy already has 3 MCP sessions on this node.*retry in 4 s/,
    );
    expect(error.data).toEqual({ code: 'RESOURCE_EXHAUSTED', retry_after_ms: 4_000 });

    // Retried when told: the fourth, idle and now 5 s old, is ended; the wait in progress was never cut.
    now += 4_000;
    expect((await rawMcp(endpoint, initializeRequest)).sessionId).not.toBeNull();
    await expect(fourth.client.listTools()).rejects.toThrow(/MCP session not found/);
    const waited = (await wait) as CallToolResult;
    expect(refusalOf(waited)).toBe('');
    expect(waited.structuredContent).toMatchObject({ count: 0 });
    expect((await waiting.client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('stops counting sessions that never got past their initialize once the short expiry passed', async () => {
    // No session is ended for another here (newSessionMs is long): only the expiry frees the address.
    const url = await start({ limits: { connectionsPerAddress: 3 } }, { unusedMs: 10_000, newSessionMs: 600_000 });
    const at = (agentId: string) => endpointOf(url, { workspace: `ws-${agentId}`, agentId });
    const used = await open(at('worker'), { stream: false });
    expect((await used.client.listTools()).tools.length).toBeGreaterThan(0);
    // Initialized and never used: the MCP client's own handshake, then nothing (no stream, no request).
    const thrown = [await open(at('leak-1'), { stream: false }), await open(at('leak-2'), { stream: false })];
    now += 2_000;

    const refused = await rawMcp(at('newcomer'), initializeRequest);
    expect(refused.status).toBe(429);
    expect(refused.text).toMatch(/RESOURCE_EXHAUSTED: Address \S+ already has 3 MCP sessions on this node/);
    // The never-used sessions expire 10 s after they opened: 8 s from now.
    expect(refused.retryAfter).toBe('8');

    now += 8_000;
    const newcomer = await open(at('newcomer'), { stream: false });
    const another = await open(at('another'), { stream: false });
    expect(newcomer.id).not.toBe(another.id);
    for (const leak of thrown) await expect(leak.client.listTools()).rejects.toThrow(/MCP session not found/);
    // The session its host used lives the full idle time.
    expect((await used.client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it("ends its address's oldest never-used session for a new one, never a used one", async () => {
    const url = await start({ limits: { connectionsPerAddress: 3 } });
    const at = (agentId: string) => endpointOf(url, { workspace: 'local', agentId });
    const used = await open(at('worker'), { stream: false });
    expect((await used.client.listTools()).tools.length).toBeGreaterThan(0);
    now += 1_000;
    const leaks = [await rawMcp(at('leak-1'), initializeRequest)];
    now += 1_000;
    leaks.push(await rawMcp(at('leak-2'), initializeRequest));
    now += 10_000;

    const other = await open(at('other-workspace-host'), { stream: false });
    expect((await other.client.listTools()).tools.length).toBeGreaterThan(0);
    expect(await statusOf(at('leak-1'), leaks[0]!.sessionId ?? '')).toBe(404);
    expect(await statusOf(at('leak-2'), leaks[1]!.sessionId ?? '')).toBe(200);
    expect((await used.client.listTools()).tools.length).toBeGreaterThan(0);
  });
});
