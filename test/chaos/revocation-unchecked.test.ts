import { createServer, mintToken, type PlanHubServer } from '@planhub/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.ts';
import { connectFrom } from '../security/support/bound-client.ts';

const SECRET = 'revocation-unchecked-secret-of-enough-length';
const DEADLINE_MS = 500;

/** The connect_error data a handshake is refused with (no retries: what the node answered). */
const handshakeRefusal = async (url: string, token: string): Promise<unknown> => {
  const attempt = await connectFrom(url, '127.0.0.1', { token });
  if (!attempt.ok) return attempt.error.data;
  attempt.socket.close();
  throw new Error('the handshake was admitted');
};

/**
 * A token whose revocation cannot be looked up (Redis hung) is neither admitted nor refused as a bad token, at every
 * door: the client is told to retry (UNAVAILABLE). /metrics used to answer 401 with the store's error text.
 */
describe('a revocation lookup that cannot be made (Redis hung)', () => {
  let redis: RedisProcess;
  let server: PlanHubServer;
  let url: string;
  beforeAll(async () => {
    redis = await startRedisProcess();
    server = createServer({
      port: 0,
      logLevel: 'silent',
      redisUrl: redis.url,
      redisPrefix: 'unchecked',
      secret: SECRET,
      storeDeadlineMs: DEADLINE_MS,
    });
    ({ url } = await server.listen());
  });
  afterAll(async () => {
    redis.signal('SIGCONT');
    await server.close();
    await redis.dispose();
  });

  it('answers UNAVAILABLE on the socket handshake, on /mcp and on /metrics, then admits the token again', async () => {
    const agent = await mintToken(SECRET, { workspace: 'ws', agent_id: 'a', role: 'agent' }, '1h');
    const scraper = await mintToken(SECRET, { workspace: 'ws', agent_id: 'ops', role: 'dashboard' }, '1h');
    const mcp = () =>
      fetch(`${url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${agent}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      });
    const metrics = () => fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${scraper}` } });

    redis.signal('SIGSTOP');
    try {
      expect(await handshakeRefusal(url, agent)).toMatchObject({ code: 'UNAVAILABLE' });
      const viaMcp = await mcp();
      expect(viaMcp.status).toBe(503);
      expect(await viaMcp.text()).toContain('UNAVAILABLE');
      const scraped = await metrics();
      expect([scraped.status, await scraped.json()]).toEqual([
        503,
        { ok: false, error: { code: 'UNAVAILABLE', message: expect.stringMatching(/retry shortly/) as unknown } },
      ]);
    } finally {
      redis.signal('SIGCONT');
    }
    expect((await metrics()).status).toBe(200);
    expect((await mcp()).status).toBe(200);
  });
});
