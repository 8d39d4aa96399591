import type { CommandConnection } from './connect.ts';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { LimitBackend } from '../limits/limit-backend.ts';
import { createRedisConnectionCounter } from './redis-connection-counter.ts';

/**
 * Limits shared by every node of a deployment, on the store's command connection (same fail-fast options). While
 * Redis is unreachable the call budget falls back to a per-node budget of the same size (the insurance limiter)
 * rather than refusing or waving everything through.
 */
export const createRedisLimits = (client: CommandConnection, prefix: string): LimitBackend => ({
  rateLimiter: ({ points, duration }) => {
    const keyPrefix = `${prefix}:rl`;
    return new RateLimiterRedis({
      storeClient: client,
      points,
      duration,
      keyPrefix,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({ points, duration, keyPrefix }),
    });
  },
  connectionCounter: (options) => createRedisConnectionCounter(client, prefix, options),
});
