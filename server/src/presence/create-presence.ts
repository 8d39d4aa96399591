import type { Logger } from 'pino';
import type { ServerConfig } from '../config.ts';
import { randomId } from '../core/random-id.ts';
import type { Store } from '../store/store.ts';
import { createMemoryPresence } from './memory-presence.ts';
import { createPresenceTracker } from './presence-tracker.ts';
import { createRedisPresence, type PresenceRedis } from './redis-presence.ts';

/** The node's presence tracker on the store's backing: Redis when the store has it, else shared process memory. */
export const createPresence = (config: ServerConfig, store: Store, log: Logger) =>
  createPresenceTracker({
    nodeId: randomId(),
    backend:
      store.redis === undefined
        ? createMemoryPresence(store)
        : createRedisPresence(store.redis as PresenceRedis, config.redisPrefix),
    store,
    log,
    heartbeatMs: config.presenceHeartbeatMs,
    stallAfterMs: config.stallAfterMs,
  });
