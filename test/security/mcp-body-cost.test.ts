import { request } from 'node:http';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { endpointOf } from '../mcp/mcp-clients.ts';
import { initializeRequest, rawMcp } from '../mcp/raw-mcp.ts';

/** A POST to /mcp whose body goes in pieces without a Content-Length: Node sends it `Transfer-Encoding: chunked`. */
const chunkedPost = (endpoint: URL, headers: Record<string, string>, pieces: string[]) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    for (const piece of pieces) req.write(piece);
    req.end();
  });

/** Splits a body in pieces of 16 KiB, as a streaming client would send it. */
const pieces = (body: string) => body.match(/[\s\S]{1,16384}/g) ?? [];

/**
 * A tools/call is charged by its body; the body's size used to be read from Content-Length, so a chunked body (no
 * length) cost one unit whatever its size.
 */
describe('an MCP call with a chunked body', () => {
  let h: Harness | undefined;
  afterEach(async () => h?.close());

  const session = async (limits: Record<string, number> = {}) => {
    h = await startHarness('memory', { limits });
    const endpoint = endpointOf(h.url, { workspace: 'team', agentId: 'chunker' });
    const opened = await rawMcp(endpoint, initializeRequest);
    const headers = { 'mcp-session-id': opened.sessionId ?? '', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
    return { endpoint, headers };
  };
  const bigCall = (id: number) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'getPlanStatus', arguments: { plan_id: 'p'.repeat(8), padding: 'x'.repeat(100_000) } },
    });

  it('is charged by the bytes that came, so the second of two 100 KB calls passes a 12-unit window', async () => {
    const { endpoint, headers } = await session({ callsPerSecond: 2, rateWindowSeconds: 6 });
    const first = await chunkedPost(endpoint, headers, pieces(bigCall(2)));
    expect(first.status).toBe(200);
    expect(first.text).not.toMatch(/RESOURCE_EXHAUSTED/);
    const second = await chunkedPost(endpoint, headers, pieces(bigCall(3)));
    // The refusal's wire error, in the result's _meta (its text is the dialect's own shape).
    expect(second.text).toMatch(/"planhub\/error":\{"code":"RESOURCE_EXHAUSTED"/);
  });

  it('is refused 413 past payloadBytes, and -32700 when it is not JSON', async () => {
    const { endpoint, headers } = await session();
    const huge = await chunkedPost(endpoint, headers, pieces('x'.repeat(1024 * 1024 + 1)));
    expect(huge.status).toBe(413);
    expect(JSON.parse(huge.text)).toMatchObject({
      error: { code: -32000, message: expect.stringMatching(/^Payload Too Large/) as unknown },
    });
    const broken = await chunkedPost(endpoint, headers, ['{"jsonrpc":', '"2.0", "id": 4,']);
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.text)).toMatchObject({ error: { code: -32700, message: 'Parse error: Invalid JSON' } });
    // The session still answers.
    expect((await chunkedPost(endpoint, headers, pieces(bigCall(5)))).status).toBe(200);
  });
});
