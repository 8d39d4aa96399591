import { describe, expect, it } from 'vitest';
import { bareTransport, transportSuite } from './support/bare-transport.ts';
import { openAuth, rawClient } from './support/raw-client.ts';

/**
 * Transport connections that never connect a socket are counted and capped per address too (twice the socket cap,
 * so a client that connects as it should still meets the socket cap's structured refusal first).
 */
describe('transport connections per address', () => {
  const { managers, start } = transportSuite();

  it('refuses transport connections past twice the address cap, and frees their slots when they close', async () => {
    const { url } = await start({ limits: { connectionsPerAddress: 2 } });
    const attempts = await Promise.all(Array.from({ length: 20 }, () => bareTransport(url)));
    managers.push(...attempts.map((a) => a.manager));
    expect(attempts.filter((a) => a.opened)).toHaveLength(4);
    for (const m of managers.splice(0)) m.engine.close();
    // Once they are gone, a client that connects properly is admitted again.
    await expect
      .poll(async () => {
        const client = await rawClient(url, openAuth('ws', 'after')).catch(() => undefined);
        client?.close();
        return client !== undefined;
      })
      .toBe(true);
  });
});
