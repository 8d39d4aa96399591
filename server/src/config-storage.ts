import { ConfigError } from './config-error.ts';

/** The settings that choose the store (a part of ServerConfig). */
export interface StorageSettings {
  storageType?: 'memory' | 'redis' | 'file' | 'hybrid' | undefined;
  storagePath?: string | undefined;
  redisUrl?: string | undefined;
  redisClusterNodes?: readonly string[] | undefined;
}

/** The store a configuration selects (docs/operations.md, "Storage"). */
export const storeKindOf = (config: StorageSettings) => {
  if (config.storageType === 'file' || config.storageType === 'hybrid') return 'file';
  if (config.storageType === undefined && config.storagePath !== undefined) return 'file';
  const redis = config.redisUrl !== undefined || config.redisClusterNodes !== undefined;
  if (config.storageType === 'redis' || (config.storageType === undefined && redis)) return 'redis';
  return 'memory';
};

/** Store settings that contradict each other: refused rather than one of them silently ignored. */
export const checkStorage = (config: StorageSettings, nameOf: (key: string) => string = (key) => key): void => {
  const kind = storeKindOf(config);
  const redisName = nameOf(config.redisUrl !== undefined ? 'redisUrl' : 'redisClusterNodes');
  const redis = config.redisUrl !== undefined || config.redisClusterNodes !== undefined;
  // Only an explicit storageType can select a store these settings do not fit; unset, they select the store.
  if (kind === 'memory' && redis)
    throw new ConfigError(
      `${redisName} is set, but ${nameOf('storageType')} is "memory", which uses no Redis; unset one of them.`,
    );
  if (kind !== 'file' && config.storagePath !== undefined)
    throw new ConfigError(
      `${nameOf('storagePath')} is set, but ${nameOf('storageType')} is "${config.storageType}", which keeps ` +
        'nothing on disk; unset one of them (the path alone selects the file store).',
    );
  if (kind === 'file' && redis)
    throw new ConfigError(
      `${redisName} is set, but ${nameOf(config.storageType === undefined ? 'storagePath' : 'storageType')} ` +
        `selects the file store (one node, no Redis); unset one of them.`,
    );
  if (kind === 'file' && config.storagePath === undefined)
    throw new ConfigError(
      `${nameOf('storageType')} is "${config.storageType}", which needs a directory: set ` +
        `${nameOf('storagePath')} (e.g. PLANHUB_STORAGE_PATH=/var/lib/planhub or storage_path in planhub.json).`,
    );
  if (kind === 'redis' && config.redisUrl === undefined && config.redisClusterNodes === undefined)
    throw new ConfigError(
      `${nameOf('storageType')} is "redis", which needs REDIS_URL (or storage_config.url) or a Redis Cluster's ` +
        'seed nodes (PLANHUB_REDIS_CLUSTER_NODES).',
    );
};
