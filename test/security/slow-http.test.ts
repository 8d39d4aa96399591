import { mintToken } from '@planhub/server';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { within } from '../helpers/within.ts';
import { callRaw, mcpClient, textOf } from '../mcp/mcp-clients.ts';
import { captureLog } from './support/capture-log.ts';
import { serverFixture } from './support/server-fixture.ts';
import { dribble, postHead, rawHttp } from './support/slow-http.ts';

const SECRET = 'slow-http-secret-0123456789-abcdef';
/** Short limits, so a test sees them fire; Node looks for late requests every checkEveryMs. */
const SHORT = { headersMs: 300, requestMs: 800, checkEveryMs: 100 };
/** Limits too long to fire within a test: whatever ends a connection then is not the timeout. */
const LONG = { headersMs: 60_000, requestMs: 60_000 };

/** Status line, lower-cased headers and the JSON body of a raw answer (chunked or not). */
const answer = (text: string) => {
  const [head = '', rest = ''] = text.split('\r\n\r\n');
  const [status = '', ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((l): [string, string] => [l.split(':')[0]?.toLowerCase() ?? '', l.slice(l.indexOf(':') + 1).trim()]),
  );
  const json = rest.slice(rest.indexOf('{'), rest.lastIndexOf('}') + 1);
  const body: unknown = json ? JSON.parse(json) : undefined;
  return { status: Number(status.split(' ')[1]), headers, body };
};

describe('slow HTTP clients', () => {
  const { node } = serverFixture();

  it('cuts bodies dribbled slower than the request timeout, however many one address opens', async () => {
    const url = await node({ secret: SECRET }, { http: SHORT });
    const clients = await Promise.all(Array.from({ length: 20 }, () => rawHttp(url, postHead('/tokens/revoke', 1000))));
    for (const client of clients) dribble(client, 200);
    const times = await Promise.all(clients.map((c) => within(c.closed, 3000, 'held')));
    expect(times.filter((t) => t === 'held')).toEqual([]);
  });

  it('cuts headers dribbled slower than the headers timeout', async () => {
    const url = await node({}, { http: SHORT });
    const client = await rawHttp(url, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    dribble(client, 100);
    expect(await within(client.closed, 2000, 'held')).not.toBe('held');
  });

  it('ends the connection once /mcp refuses a request before reading its body', async () => {
    const url = await node({ secret: SECRET }, { http: LONG });
    const client = await rawHttp(url, `${postHead('/mcp', 1000, { Accept: 'application/json, text/event-stream' })}{`);
    dribble(client, 100);
    expect(await within(client.closed, 2000, 'held')).not.toBe('held');
    expect(answer(client.text()).status).toBe(401);
  });

  it('answers a refusal before the body with Connection: close, and closes', async () => {
    const url = await node({ secret: SECRET }, { http: LONG });
    const client = await rawHttp(url, `${postHead('/healthz', 1000)}{`);
    dribble(client, 100);
    expect(await within(client.closed, 2000, 'held')).not.toBe('held');
    const refused = answer(client.text());
    expect(refused.status).toBe(405);
    expect(refused.headers.get('connection')).toBe('close');
    expect(refused.body).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENT' } });
  });

  it('answers an oversized revoke body 413 in the refusal shape, announced or streamed, and closes', async () => {
    const url = await node({ secret: SECRET }, { http: LONG });
    const big = 'x'.repeat(20 * 1024);
    const announced = await rawHttp(url, postHead('/tokens/revoke', big.length) + big);
    const streamed = await rawHttp(
      url,
      'POST /tokens/revoke HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    for (let i = 0; i < 5; i++) streamed.write(`1000\r\n${'y'.repeat(0x1000)}\r\n`);
    for (const client of [announced, streamed]) {
      expect(await within(client.closed, 2000, 'held')).not.toBe('held');
      const refused = answer(client.text());
      expect(refused.status).toBe(413);
      expect(refused.headers.get('connection')).toBe('close');
      expect(refused.body).toEqual({
        ok: false,
        error: { code: 'RESOURCE_EXHAUSTED', message: expect.stringMatching(/larger than 16384 bytes/) as unknown },
      });
    }
  });

  it('logs a client that leaves mid-body at debug, not as a failed route', async () => {
    const { log, lines } = captureLog();
    const url = await node({ secret: SECRET }, { log, http: LONG });
    for (let i = 0; i < 5; i++) {
      // Node answers 100 Continue as it hands the request to its route: only then has the node read the head, so
      // leaving earlier would be a client that never made a request.
      const client = await rawHttp(url, `${postHead('/tokens/revoke', 1000, { Expect: '100-continue' })}{"tok`);
      await poll(() => client.text()).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
      client.destroy();
    }
    await poll(() => lines.filter((l) => l.msg === 'HTTP client left mid-request').length).toBe(5);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('does not cut an answer that takes longer than the request timeout (an MCP waitForEvents)', async () => {
    const url = await node({}, { http: SHORT });
    const client = await mcpClient('http', url, { workspace: 'slow', agentId: 'waiter' });
    try {
      const waited = await callRaw(client, 'waitForEvents', { timeout: 2 });
      expect(textOf(waited)).toMatch(/in 2 s/);
    } finally {
      await client.close();
    }
  });

  it('keeps valid revocations working under the short limits', async () => {
    const url = await node({ secret: SECRET }, { http: SHORT });
    const token = await mintToken(SECRET, { workspace: 'w', agent_id: 'a', role: 'agent' }, '1h');
    const res = await fetch(`${url}/tokens/revoke`, { method: 'POST', body: JSON.stringify({ token }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, result: { revoked: true } });
  });
});
