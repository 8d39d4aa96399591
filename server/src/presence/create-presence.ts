import type { Logger } from 'pino';
import type { ServerConfig } from '../config.ts';
import { randomId } from '../core/random-id.ts';
import type { Store } from '../store/store.ts';
import { createPresenceTracker } from './presence-tracker.ts';

/** The node's presence tracker, on the store's shared presence backend (Redis, or the memory store's). */
export const createPresence = (config: ServerConfig, store: Store, log: Logger) =>
  createPresenceTracker({
    nodeId: randomId(),
    backend: store.presence,
    store,
    log,
    heartbeatMs: config.presenceHeartbeatMs,
    stallAfterMs: config.stallAfterMs,
  });
