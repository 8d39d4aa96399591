import type { PlanHubServer } from '@planhub/server';
import { createServer } from '@planhub/server';
import { afterEach, describe, expect, it } from 'vitest';

/** Plain HTTP answers a refusal in the shape every other PlanHub answer has, with a message that says what to do. */
describe('HTTP refusals', () => {
  let server: PlanHubServer | undefined;
  afterEach(async () => server?.close());

  it('answers an unknown path and a foreign origin with { ok: false, error: { code, message } }', async () => {
    server = createServer({ port: 0, logLevel: 'silent' });
    const { url } = await server.listen();
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
});
