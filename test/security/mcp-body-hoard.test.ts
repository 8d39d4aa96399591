import { request, type ClientRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { endpointOf } from '../mcp/mcp-clients.ts';
import { initializeRequest, rawMcp } from '../mcp/raw-mcp.ts';

/** What one address may have in flight: 8 bodies of payloadBytes (1 MiB by default). */
const HELD = 8;
const DECLARED = 1_000_000;

/** A POST that declares a large body, sends a little of it and stalls, as a slow or hostile client does. */
const stalledPost = (endpoint: URL) => {
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
    req.write('{"jsonrpc":"2.0",');
    stalled.add(req);
  });
  answer.catch(() => undefined);
  return answer;
};
const stalled = new Set<ClientRequest>();

/**
 * A body is read whole before its request is looked at, so a client that declares a large body and sends it slowly
 * held that memory until the request timed out: 3,000 such POSTs from one address held 2.1 GB for 30 s in review.
 */
describe('MCP request bodies being read at once', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    for (const req of stalled) req.destroy();
    stalled.clear();
    await h?.close();
  });

  it('are held to 8 of payloadBytes per address: the next is refused at once, and room comes back', async () => {
    h = await startHarness('memory');
    const endpoint = endpointOf(h.url, { workspace: 'team', agentId: 'hoarder' });
    // Whichever of them arrives last is refused, at once; the others are still being read and get no answer.
    const posts = Array.from({ length: HELD + 1 }, () => stalledPost(endpoint));
    const answered: { status: number; text: string }[] = [];
    for (const post of posts)
      void post.then(
        (a) => answered.push(a),
        () => undefined,
      );
    const refused = await Promise.race(posts);
    expect(refused.status).toBe(429);
    expect(refused.text).toMatch(/RESOURCE_EXHAUSTED: Address \S+ is already sending \d+ bytes of MCP request bodies/);
    expect(answered).toHaveLength(1);

    for (const req of stalled) req.destroy();
    stalled.clear();
    await expect
      .poll(async () => (await rawMcp(endpoint, initializeRequest)).status, { timeout: 15_000, interval: 50 })
      .toBe(200);
  });
});
