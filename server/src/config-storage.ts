import { statSync } from 'node:fs';
import { dirname } from 'node:path';
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
  if (kind === 'file' && config.storagePath !== undefined) checkStorageDir(config.storagePath, nameOf('storagePath'));
  if (kind === 'redis' && config.redisUrl === undefined && config.redisClusterNodes === undefined)
    throw new ConfigError(
      `${nameOf('storageType')} is "redis", which needs REDIS_URL (or storage_config.url) or a Redis Cluster's ` +
        'seed nodes (PLANHUB_REDIS_CLUSTER_NODES).',
    );
};

/**
 * The file store's directory must be one, or be creatable: a regular file at the path, or anywhere above it, is
 * refused here, naming the setting the path came from, rather than failing inside the store with an errno. Nothing
 * is created here; the store does that when it opens.
 */
const checkStorageDir = (path: string, name: string) => {
  for (let at = path; ; at = dirname(at)) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(at).isDirectory();
    } catch {
      if (dirname(at) === at) return;
      continue;
    }
    if (isDirectory) return;
    throw new ConfigError(
      at === path
        ? `${name} is ${path}, which is a file; the file store keeps a directory of its own there. Point it at a ` +
            'directory (it is created if missing), e.g. /var/lib/planhub.'
        : `${name} is ${path}, but ${at} is a file, so no directory can be created there. Point it at a directory ` +
            '(it is created if missing), e.g. /var/lib/planhub.',
    );
  }
};
