import type { PlanHubServer, ServerConfigInput } from '@planhub/server';
import { createServer } from '@planhub/server';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { endpointOf, mcpClient, refusalOf } from './mcp-clients.ts';
import { initializeRequest } from './raw-mcp.ts';

const LIMIT = 20_000;
const REFUSAL =
  `RESOURCE_EXHAUSTED: The request has more than ${LIMIT} keys and array elements; send less per call, or store ` +
  'large data elsewhere and pass a reference.';

/**
 * A TaskCreate body whose raw text holds exactly `values` keys and array elements (each `:` and `,`), most of them
 * in the request's `_meta`, which MCP lets a client send and no tool reads (so no tool limit refuses it).
 */
const taskCreateBody = (values: number): string => {
  const body = (n: number) =>
    '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"TaskCreate","arguments":{"subject":"wide"},' +
    `"_meta":{"list":[${Array(n).fill('1').join(',')}]}}}`;
  // No string here holds a ':' or a ',': every one in the text is a value.
  const counted = (text: string) => text.match(/[:,]/g)?.length ?? 0;
  const base = counted(body(1));
  const text = body(values - base + 1);
  expect(counted(text)).toBe(values);
  return text;
};

/**
 * MCP request bodies are held to limits.frameValues as socket frames are, on their raw text before JSON.parse: an
 * agent within its call budget sent 869 KB bodies of 80,000 keys, each costing the node 270-400 ms, and pushed a
 * bystander's p99 to 1.5 s (the socket door refused such a frame after a short scan).
 */
describe('MCP request bodies over frameValues', () => {
  let node: PlanHubServer | undefined;
  const clients: Client[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    await node?.close();
    node = undefined;
  });
  const start = async (config: ServerConfigInput = {}) => {
    node = createServer({ port: 0, logLevel: 'silent', approvalPolicy: 'auto', ...config });
    return (await node.listen()).url;
  };

  /** A session opened by plain HTTP, as a client without an MCP SDK opens one: a POST sender on it. */
  const rawSession = async (url: string, agentId: string) => {
    const endpoint = endpointOf(url, { workspace: 'ws', agentId });
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const opened = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify(initializeRequest) });
    await opened.text();
    headers['mcp-session-id'] = opened.headers.get('mcp-session-id') ?? '';
    headers['mcp-protocol-version'] = initializeRequest.params.protocolVersion;
    const post = async (body: string) => {
      const answer = await fetch(endpoint, { method: 'POST', headers, body });
      return { status: answer.status, text: await answer.text() };
    };
    expect((await post('{"jsonrpc":"2.0","method":"notifications/initialized"}')).status).toBe(202);
    return post;
  };

  it('refuses a body of one value more than the limit unparsed (413, the socket words), and runs one at it', async () => {
    const url = await start();
    const post = await rawSession(url, 'raw');

    const over = await post(taskCreateBody(LIMIT + 1));
    expect(over.status).toBe(413);
    expect(JSON.parse(over.text)).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: REFUSAL }, id: null });

    const at = await post(taskCreateBody(LIMIT));
    expect(at.status).toBe(200);
    expect(at.text).toContain('"result"');
    expect(at.text).not.toContain('"isError":true');
    // The session stays usable, and the refused body created nothing: the one at the limit is task 1.
    const list = await post('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"TaskList"}}');
    expect(list.text).toMatch(/#1\b/);
    expect(list.text).not.toMatch(/#2\b/);
  });

  it('gives the official client the refusal in the error it throws, before any tool runs', async () => {
    const url = await start();
    const client = await mcpClient('http', url, { workspace: 'ws', agentId: 'sdk' });
    clients.push(client);
    const metadata = Object.fromEntries(Array.from({ length: 80_000 }, (_, i) => [`k${i}`, 1]));
    const thrown = await client.callTool({ name: 'TaskCreate', arguments: { subject: 'wide', metadata } }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(thrown).toBeInstanceOf(StreamableHTTPError);
    expect((thrown as StreamableHTTPError).code).toBe(413);
    expect((thrown as Error).message).toContain(REFUSAL);
    // Still connected; a call under the limit runs.
    const created = await client.callTool({ name: 'TaskCreate', arguments: { subject: 'narrow', metadata: { a: 1 } } });
    expect(refusalOf(created as never)).toBe('');
  });

  it('charges a refused body to the address budget by its bytes, as a refused socket frame is', async () => {
    // 10 units per 10 s for the address; a 40 KB body costs 3 (1 + 1 per 16 KiB): three refusals, then the budget's.
    const url = await start({ limits: { callsPerAddressPerSecond: 1, rateWindowSeconds: 10 } });
    const post = await rawSession(url, 'spender');
    const statuses: number[] = [];
    let last = '';
    for (let i = 0; i < 4; i++) {
      const answer = await post(taskCreateBody(LIMIT + 1));
      statuses.push(answer.status);
      last = answer.text;
    }
    expect(statuses).toEqual([413, 413, 413, 429]);
    expect(last).toMatch(/RESOURCE_EXHAUSTED: Too many calls from /);
  });
});
