import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@planhub/server';
import { createFileStore, createLogger, createMemoryStore, createRedisStore } from '@planhub/server';
import { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import { afterEach, inject } from 'vitest';
import { STORE_KINDS, uniquePrefix, type StoreKind } from './servers.ts';

/** The store kinds the store suites run on: the server suites' kinds plus the durable file store. */
export type StoreFixtureKind = StoreKind | 'file' | 'redis-cluster';
export const STORE_FIXTURE_KINDS: readonly StoreFixtureKind[] = [...STORE_KINDS, 'redis-cluster', 'file'];

/** A fresh directory for a file store, deleted by the caller. */
export const tempStorageDir = (): string => mkdtempSync(join(tmpdir(), 'planhub-file-store-'));

/**
 * File stores a describe block's tests open on directories of their own: `dir()` makes one, `open(path)` opens a
 * store on it, `close(store)` closes one early (to edit or reopen what it left); each test's other stores are closed
 * and directories removed after it. Call it in the describe block.
 */
export const fileStoreFixture = () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    for (const path of dirs.splice(0)) rmSync(path, { recursive: true, force: true });
  });
  return {
    dir: (): string => {
      const path = tempStorageDir();
      dirs.push(path);
      return path;
    },
    open: (path: string): Store => {
      const store = createFileStore({ path, eventRetention: 100 });
      stores.push(store);
      return store;
    },
    close: async (store: Store): Promise<void> => {
      const at = stores.indexOf(store);
      if (at >= 0) stores.splice(at, 1);
      await store.close();
    },
  };
};

/** A store kind, or the Redis store on the suite's Redis Cluster (same code, cluster connection). */
export type StoreBackend = StoreKind | 'redis-cluster';
export const STORE_BACKENDS: readonly StoreBackend[] = ['memory', 'redis', 'redis-cluster'];

/** The suite's shared Redis Cluster's seed nodes (host:port). */
export const testClusterNodes = () => inject('redisClusterNodes').split(',');

export interface StoreFixture {
  kind: StoreFixtureKind;
  /** The Redis key prefix (unused by memory stores). */
  prefix: string;
  /**
   * A store; for Redis each call is another node on this fixture's prefix (same data), for memory a new store, for
   * file a new store in a directory of its own (one node per directory).
   */
  open(options?: { eventRetention?: number; workspaceBytes?: number; log?: Logger; waitReplicas?: number }): Store;
  /** Closes every store opened and deletes this fixture's keys. */
  close(): Promise<void>;
}

const silent = createLogger('silent');

/** Deletes every key under a prefix (never FLUSHDB: other test files share this Redis). */
export const deletePrefix = async (url: string, prefix: string): Promise<void> => {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (found.length > 0) await redis.unlink(...found);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
};

/** deletePrefix on a Redis Cluster: every master's keys under the prefix (each key on its own slot's master). */
export const deleteClusterPrefix = async (nodes: readonly string[], prefix: string): Promise<void> => {
  const cluster = new Cluster(nodes.map((n) => ({ host: n.split(':')[0], port: Number(n.split(':')[1]) })));
  try {
    await new Promise((resolve, reject) => {
      cluster.once('ready', resolve);
      cluster.once('error', reject);
    });
    for (const master of cluster.nodes('master')) {
      let cursor = '0';
      do {
        const [next, found] = await master.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        cursor = next;
        await Promise.all(found.map((key) => cluster.unlink(key)));
      } while (cursor !== '0');
    }
  } finally {
    cluster.disconnect();
  }
};

/** Stores of one kind for one test, with cleanup. */
export const storeFixture = (kind: StoreFixtureKind): StoreFixture => {
  const opened: Store[] = [];
  const dirs: string[] = [];
  const fileStore = (eventRetention: number, quota: { workspaceBytes?: number }) => {
    const path = tempStorageDir();
    dirs.push(path);
    return createFileStore({ path, eventRetention, ...quota });
  };
  const prefix = uniquePrefix();
  return {
    kind,
    prefix,
    open(options = {}) {
      const eventRetention = options.eventRetention ?? 10_000;
      const quota = {
        ...(options.workspaceBytes === undefined ? {} : { workspaceBytes: options.workspaceBytes }),
        ...(options.waitReplicas === undefined ? {} : { waitReplicas: options.waitReplicas }),
      };
      const log = options.log ?? silent;
      const store =
        kind === 'memory'
          ? createMemoryStore({ eventRetention, ...quota })
          : kind === 'file'
            ? fileStore(eventRetention, quota)
            : kind === 'redis'
              ? createRedisStore({ url: inject('redisUrl'), prefix, eventRetention, log, ...quota })
              : createRedisStore({
                  target: { clusterNodes: testClusterNodes() },
                  prefix,
                  eventRetention,
                  log,
                  ...quota,
                });
      opened.push(store);
      return store;
    },
    async close() {
      await Promise.all(opened.map((s) => s.close()));
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      if (kind === 'redis') await deletePrefix(inject('redisUrl'), prefix);
      if (kind === 'redis-cluster') await deleteClusterPrefix(testClusterNodes(), prefix);
    },
  };
};
