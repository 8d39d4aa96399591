import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { ConnectionCounter, LimitBackend } from './limit-backend.ts';

/** One node's count: enough for the memory store, and the fallback while Redis is unreachable. */
export const createMemoryConnectionCounter = (): ConnectionCounter => {
  const byKey = new Map<string, Set<string>>();
  return {
    acquire(key, id, max) {
      const set = byKey.get(key) ?? new Set<string>();
      if (set.size >= max) return Promise.resolve({ admitted: false, live: set.size });
      set.add(id);
      byKey.set(key, set);
      return Promise.resolve({ admitted: true, live: set.size });
    },
    release(key, id) {
      const set = byKey.get(key);
      set?.delete(id);
      if (set?.size === 0) byKey.delete(key);
      return Promise.resolve();
    },
    close() {
      byKey.clear();
    },
  };
};

export const createMemoryLimits = (): LimitBackend => ({
  rateLimiter: ({ points, duration }) => new RateLimiterMemory({ points, duration, keyPrefix: 'rl' }),
  connectionCounter: () => createMemoryConnectionCounter(),
});
