import type { Logger } from 'pino';
import { ConfigError } from '../config-error.ts';
import { storeKindOf, type ServerConfig } from '../config.ts';
import { createFileStore } from './file/file-store.ts';
import { createMemoryStore } from './memory-store.ts';
import { createRedisStore } from './redis/redis-store.ts';
import type { Store } from './store.ts';

/** memory unless REDIS_URL or a Redis Cluster's seed nodes are set, or the file store is chosen (docs/state-model.md, docs/operations.md). */
export const createStore = (config: ServerConfig, log: Logger): Store => {
  // As the Redis store's event feed does: the commit stands, the fault is logged.
  const onListenerError = (module: string) => (err: unknown, event: { event_id: string }) =>
    log.child({ module }).error({ err, event_id: event.event_id }, 'event listener failed');
  const kind = storeKindOf(config);
  if (kind === 'file') {
    if (config.storagePath === undefined)
      throw new ConfigError('The file store needs storagePath (PLANHUB_STORAGE_PATH or storage_path).');
    return createFileStore({
      path: config.storagePath,
      eventRetention: config.eventRetention,
      workspaceBytes: config.limits.workspaceBytes,
      onListenerError: onListenerError('file-store'),
      log: log.child({ module: 'file-store' }),
    });
  }
  if (kind === 'redis') {
    if (config.redisUrl === undefined && config.redisClusterNodes === undefined)
      throw new ConfigError('storageType "redis" needs redisUrl (REDIS_URL) or redisClusterNodes.');
    return createRedisStore({
      target: config.redisClusterNodes ? { clusterNodes: config.redisClusterNodes } : { url: config.redisUrl ?? '' },
      waitReplicas: config.redisWaitReplicas,
      commandTimeoutMs: config.storeDeadlineMs,
      prefix: config.redisPrefix,
      eventRetention: config.eventRetention,
      workspaceBytes: config.limits.workspaceBytes,
      log,
    });
  }
  return createMemoryStore({
    eventRetention: config.eventRetention,
    eventBytes: config.memoryEventBytes,
    storeBytes: config.memoryStoreBytes,
    workspaceBytes: config.limits.workspaceBytes,
    onListenerError: onListenerError('memory-store'),
  });
};
