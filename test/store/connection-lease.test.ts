import { createLogger } from '@planhub/server';
import { Redis } from 'ioredis';
import { describe, expect, inject, vi } from 'vitest';
import { storeTest } from './conformance-support.ts';

const LEASE_MS = 300;

describe('connection leases on Redis', () => {
  const it = storeTest('redis');

  it('still refuses an agent over its limit after its connections outlived the lease time', async ({
    store,
    fixture,
  }) => {
    const counter = store.limits.connectionCounter({ log: createLogger('silent'), leaseMs: LEASE_MS });
    const raw = new Redis(inject('redisUrl'));
    try {
      const key = '{ws}:agent-1';
      const start = Date.now();
      expect(await counter.acquire(key, 'c1', 2)).toEqual({ admitted: true, live: 1 });
      expect(await counter.acquire(key, 'c2', 2)).toEqual({ admitted: true, live: 2 });
      // Renewals have moved the lease past three times its length, so at least two whole lease times have passed
      // since the admissions: their own expiry (and the key's, had renewal not extended it) is long gone.
      await vi.waitFor(
        async () =>
          expect(Number(await raw.zscore(`${fixture.prefix}:conn:${key}`, 'c1'))).toBeGreaterThan(start + 3 * LEASE_MS),
        { timeout: 20 * LEASE_MS, interval: LEASE_MS / 6 },
      );
      expect(Date.now() - start).toBeGreaterThan(2 * LEASE_MS);
      expect(await raw.pttl(`${fixture.prefix}:conn:${key}`)).toBeGreaterThan(0);
      expect(await raw.zcard(`${fixture.prefix}:conn:${key}`)).toBe(2);
      expect(await counter.acquire(key, 'c3', 2)).toEqual({ admitted: false, live: 2 });
      await counter.release(key, 'c1');
      expect(await counter.acquire(key, 'c3', 2)).toEqual({ admitted: true, live: 2 });
    } finally {
      counter.close();
      raw.disconnect();
    }
  });
});
