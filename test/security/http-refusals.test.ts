import { mintToken } from '@planhub/server';
import { describe, expect, it } from 'vitest';
import { serverFixture } from './support/server-fixture.ts';

/** Plain HTTP answers a refusal in the shape every other PlanHub answer has, with a message that says what to do. */
describe('HTTP refusals', () => {
  const { node } = serverFixture();

  it('answers an unknown path and a foreign origin with { ok: false, error: { code, message } }', async () => {
    const url = await node();
    const missing = await fetch(`${url}/nope?x=1`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await missing.json()).toEqual({
      ok: false,
      error: {
        code: 'NOT_FOUND',
        message: expect.stringMatching(
          /^No route \/nope here\. This node answers HTTP at .*\/healthz.*\/mcp/,
        ) as unknown,
      },
    });
    const foreign = await fetch(`${url}/healthz`, { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ ok: false, error: { code: 'PERMISSION_DENIED' } });
  });

  const SECRET = 'refusals-secret-0123456789-abcdef';
  const WRONG = ['POST', 'PUT', 'DELETE', 'PATCH'];
  const shaped = async (res: Response, status: number, code: string) => {
    expect(res.status, `${res.url}`).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ ok: false, error: { code, message: expect.any(String) as unknown } });
  };

  it('refuses a wrong method on every route 405 in that shape, naming the methods it takes', async () => {
    const url = await node({ secret: SECRET });
    const readOnly = ['/', '/healthz', '/readyz', '/metrics', '/dashboard', '/dashboard/app.js'];
    for (const path of readOnly)
      for (const method of WRONG) {
        const res = await fetch(`${url}${path}`, { method, redirect: 'manual' });
        expect(res.headers.get('allow')).toMatch(/^GET, HEAD/);
        await shaped(res, 405, 'INVALID_ARGUMENT');
      }
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const res = await fetch(`${url}/tokens/revoke`, { method });
      expect(res.headers.get('allow')).toBe('POST');
      await shaped(res, 405, 'INVALID_ARGUMENT');
    }
  });

  it('answers every other refusal of plain HTTP in that shape, with its status', async () => {
    const url = await node({ secret: SECRET });
    await shaped(await fetch(`${url}/dashboard/nope.js`), 404, 'NOT_FOUND');
    const metrics = await fetch(`${url}/metrics`);
    expect(metrics.headers.get('www-authenticate')).toBe('Bearer');
    await shaped(metrics, 401, 'UNAUTHENTICATED');
    const agent = await mintToken(SECRET, { workspace: 'w', agent_id: 'a', role: 'agent' }, '1h');
    await shaped(
      await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${agent}` } }),
      403,
      'PERMISSION_DENIED',
    );
    const dashboard = await mintToken(SECRET, { workspace: 'w', agent_id: 'p', role: 'dashboard' }, '1h');
    const scraped = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${dashboard}` } });
    // Success stays Prometheus text.
    expect([scraped.status, scraped.headers.get('content-type')]).toEqual([200, expect.stringMatching(/^text\/plain/)]);
    const revoke = (body: string) => fetch(`${url}/tokens/revoke`, { method: 'POST', body });
    await shaped(await revoke('not json'), 400, 'INVALID_ARGUMENT');
    await shaped(await revoke(JSON.stringify({ token: 'not.a.token' })), 401, 'UNAUTHENTICATED');
    const forged = await mintToken(
      'another-secret-0123456789-xyz',
      { workspace: 'w', agent_id: 'a', role: 'agent' },
      '1h',
    );
    await shaped(await revoke(JSON.stringify({ token: forged })), 401, 'UNAUTHENTICATED');
    await shaped(await revoke(JSON.stringify({ token: 'x'.repeat(20 * 1024) })), 413, 'RESOURCE_EXHAUSTED');
  });
});
