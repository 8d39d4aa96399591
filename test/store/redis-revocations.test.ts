import pino from 'pino';
import { describe, expect } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { storeTest } from './conformance-support.ts';

const log = pino({ level: 'silent' });
const CHECK_MS = 50;
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

/**
 * Every node reads the live revoked set on a timer and announces what it has not seen, so that connections holding a
 * revoked token are ended. A token revoked on another node before a node's first read (a node whose Redis came up
 * late, whose handshakes were answered meanwhile) must be announced by that first read too.
 */
describe.each(['redis', 'redis-cluster'] as const)('revocations shared on the %s store', (kind) => {
  const it = storeTest(kind);

  it('announces, on its first read, a token revoked elsewhere before it', async ({ fixture }) => {
    const elsewhere = fixture.open().revocations({ checkMs: 60_000, log });
    await elsewhere.revoke('jti-before', inAnHour());

    const here = fixture.open().revocations({ checkMs: CHECK_MS, log });
    const told: string[] = [];
    here.onRevoked((jti) => told.push(jti));
    try {
      await eventually(() => expect(told).toContain('jti-before'));
      expect(told).toEqual(['jti-before']);
      expect(await here.isRevoked('jti-before')).toBe(true);

      // Later revocations elsewhere are announced once, within a few reads.
      await elsewhere.revoke('jti-after', inAnHour());
      await eventually(() => expect(told).toContain('jti-after'));
      await new Promise((resolve) => setTimeout(resolve, CHECK_MS * 4));
      expect(told).toEqual(['jti-before', 'jti-after']);
    } finally {
      here.close();
      elsewhere.close();
    }
  });
});
