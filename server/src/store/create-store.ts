import type { Logger } from 'pino';
import type { ServerConfig } from '../config.ts';
import { createMemoryStore } from './memory-store.ts';
import { createRedisStore } from './redis/redis-store.ts';
import type { Store } from './store.ts';

/** memory unless REDIS_URL is set (docs/state-model.md). */
export const createStore = (config: ServerConfig, log: Logger): Store =>
  config.redisUrl === undefined
    ? createMemoryStore({
        eventRetention: config.eventRetention,
        eventBytes: config.memoryEventBytes,
        workspaceBytes: config.limits.workspaceBytes,
        // As the Redis store's event feed does: the commit stands, the fault is logged.
        onListenerError: (err, event) =>
          log.child({ module: 'memory-store' }).error({ err, event_id: event.event_id }, 'event listener failed'),
      })
    : createRedisStore({
        url: config.redisUrl,
        prefix: config.redisPrefix,
        eventRetention: config.eventRetention,
        workspaceBytes: config.limits.workspaceBytes,
        commandTimeoutMs: config.storeDeadlineMs,
        log,
      });
