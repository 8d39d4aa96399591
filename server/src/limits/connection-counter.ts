import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';

/** Live connections per agent; `acquire` admits one unless the agent already holds `max`. */
export interface ConnectionCounter {
  acquire(key: string, connectionId: string, max: number): Promise<{ admitted: boolean; live: number }>;
  release(key: string, connectionId: string): Promise<void>;
  close(): void;
}

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

/** The few commands of an ioredis client this module uses (it never imports ioredis itself). */
interface RedisCommands {
  status: string;
  once(event: 'ready', listener: () => void): unknown;
  off(event: 'ready', listener: () => void): unknown;
  defineCommand(name: string, definition: { numberOfKeys: number; lua: string }): void;
  zrem(key: string, member: string): Promise<unknown>;
  pipeline(): { zadd(key: string, ...args: Array<string | number>): unknown; exec(): Promise<unknown> };
}
type WithAcquire = RedisCommands & {
  phConnAcquire(key: string, now: number, expiry: number, id: string, max: number): Promise<number>;
};

export interface RedisConnectionCounterOptions {
  /** The Redis store's command connection. */
  redis: unknown;
  /** Redis key prefix of the deployment. */
  prefix: string;
  log: Logger;
  /** A node that dies stops renewing; its connections stop counting after this long. Default 30 s. */
  leaseMs?: number;
  /** How long a handshake waits for the store's first Redis connection (only at startup). Default 1 s. */
  readyWaitMs?: number;
}

/**
 * The store's client has no offline queue: at startup, wait (bounded) for its first connection rather than count
 * early handshakes per node. Later outages don't wait: they fall back at once.
 */
const firstReady = (redis: RedisCommands, ms: number, everReady: () => boolean) =>
  everReady()
    ? Promise.resolve()
    : new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          redis.off('ready', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        redis.once('ready', done);
      });

/**
 * Counts an agent's connections across every node: one sorted set per agent whose members are connection ids
 * scored by a lease expiry, renewed by the owning node every third of the lease. A crashed node's connections
 * therefore stop counting when their lease runs out, without anyone cleaning up after it. While Redis is
 * unreachable, admission falls back to this node's own count (a soft limit rather than refusing every agent).
 */
export const createRedisConnectionCounter = (options: RedisConnectionCounterOptions): ConnectionCounter => {
  const leaseMs = options.leaseMs ?? 30_000;
  const log = options.log.child({ module: 'connection-counter' });
  const redis = options.redis as WithAcquire;
  redis.defineCommand('phConnAcquire', {
    numberOfKeys: 1,
    lua: readFileSync(new URL('connection-counter.lua', import.meta.url), 'utf8'),
  });
  let everReady = redis.status === 'ready';
  if (!everReady) redis.once('ready', () => (everReady = true));
  const fallback = createMemoryConnectionCounter();
  const held = new Map<string, Set<string>>();
  // Hash-tagged by workspace like the store's keys, so a Redis Cluster keeps a workspace's keys on one slot.
  const redisKey = (key: string) => `${options.prefix}:conn:${key}`;

  const renew = async () => {
    if (held.size === 0) return;
    const expiry = Date.now() + leaseMs;
    const pipeline = redis.pipeline();
    for (const [key, ids] of held) for (const id of ids) pipeline.zadd(redisKey(key), 'XX', expiry, id);
    await pipeline.exec();
  };
  const timer = setInterval(() => {
    renew().catch((err: unknown) =>
      log.warn({ reason: err instanceof Error ? err.message : String(err) }, 'connection lease renewal failed'),
    );
  }, leaseMs / 3);
  timer.unref();

  return {
    async acquire(key, id, max) {
      let live: number;
      try {
        await firstReady(redis, options.readyWaitMs ?? 1000, () => everReady);
        const now = Date.now();
        live = await redis.phConnAcquire(redisKey(key), now, now + leaseMs, id, max);
      } catch (err) {
        log.warn(
          { reason: err instanceof Error ? err.message : String(err) },
          'connection count falls back to this node',
        );
        return fallback.acquire(key, id, max);
      }
      if (live < 0) return { admitted: false, live: -live };
      const ids = held.get(key) ?? new Set<string>();
      ids.add(id);
      held.set(key, ids);
      return { admitted: true, live };
    },
    async release(key, id) {
      await fallback.release(key, id);
      const ids = held.get(key);
      ids?.delete(id);
      if (ids?.size === 0) held.delete(key);
      try {
        await redis.zrem(redisKey(key), id);
      } catch (err) {
        // The lease runs out by itself; nothing else to do.
        log.warn({ reason: err instanceof Error ? err.message : String(err) }, 'connection release failed');
      }
    },
    close() {
      clearInterval(timer);
      held.clear();
      fallback.close();
    },
  };
};
