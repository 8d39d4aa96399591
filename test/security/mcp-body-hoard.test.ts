import { request, type ClientRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { endpointOf } from '../mcp/mcp-clients.ts';
import { initializeRequest, rawMcp } from '../mcp/raw-mcp.ts';

/** What one address may hold: 8 bodies of payloadBytes (1 MiB by default), counted as their bytes arrive. */
const HELD = 8;
const DECLARED = 1_000_000;

const stalled = new Set<ClientRequest>();

/** A POST that declares a large body, sends `sent` bytes of it and stalls, as a slow or hostile client does. */
const stalledPost = (endpoint: URL, sent: number) => {
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req: ClientRequest = request(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': String(DECLARED),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.write('{"jsonrpc":"2.0",'.padEnd(sent, ' '));
    stalled.add(req);
  });
  answer.catch(() => undefined);
  return answer;
};

/**
 * A body is read whole before its request is looked at, so a client that sends a large body slowly held it until the
 * request timed out: 3,000 such POSTs from one address held 2.1 GB for 30 s in review. Bodies are held to a budget
 * per address, counted as their bytes arrive, so a POST that declares much and sends nothing holds nothing.
 */
describe('MCP request bodies being read at once', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    for (const req of stalled) req.destroy();
    stalled.clear();
    await h?.close();
  });

  it('hold at most 8 of payloadBytes per address: the body that would pass it is refused, and room comes back', async () => {
    h = await startHarness('memory');
    const endpoint = endpointOf(h.url, { workspace: 'team', agentId: 'hoarder' });
    const posts = Array.from({ length: HELD }, () => stalledPost(endpoint, DECLARED - 1000));
    const answered: { status: number; text: string }[] = [];
    for (const post of posts)
      void post.then(
        (a) => answered.push(a),
        () => undefined,
      );
    // Whichever body's bytes pass the address's budget first is refused at once; the rest are still being read.
    const next = stalledPost(endpoint, 600_000);
    const refused = await Promise.race([...posts, next]);
    expect(refused.status).toBe(429);
    expect(refused.text).toMatch(/RESOURCE_EXHAUSTED: Address \S+ is already sending \d+ bytes of MCP request bodies/);

    for (const req of stalled) req.destroy();
    stalled.clear();
    await expect
      .poll(async () => (await rawMcp(endpoint, initializeRequest)).status, { timeout: 15_000, interval: 50 })
      .toBe(200);
  });

  it('holds nothing for a body declared and not sent, so it locks nobody out', async () => {
    h = await startHarness('memory');
    const endpoint = endpointOf(h.url, { workspace: 'team', agentId: 'staller' });
    for (let i = 0; i < HELD * 4; i++) void stalledPost(endpoint, 1);
    const other = endpointOf(h.url, { workspace: 'team', agentId: 'bystander' });
    expect((await rawMcp(other, initializeRequest)).status).toBe(200);
  });
});
