import type { Logger } from 'pino';
import type { ServerConfig } from '../config.ts';
import { createMemoryStore } from './memory-store.ts';
import type { Store } from './store.ts';

/** memory unless REDIS_URL is set (DESIGN.md §5). */
export const createStore = (config: ServerConfig, _log: Logger): Store => {
  if (config.redisUrl !== undefined) throw new Error('The Redis store is not available yet.');
  return createMemoryStore({ eventRetention: config.eventRetention });
};
