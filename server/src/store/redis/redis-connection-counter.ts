import { readFileSync } from 'node:fs';
import type { CommandConnection } from './connect.ts';
import type { ConnectionCounter, ConnectionLeaseOptions } from '../limits/limit-backend.ts';
import { createMemoryConnectionCounter } from '../limits/memory-limits.ts';
import { firstReady } from './first-ready.ts';

type WithAcquire = CommandConnection & {
  phConnAcquire(key: string, now: number, expiry: number, id: string, max: number): Promise<number>;
};

/**
 * Counts an agent's connections across every node: one sorted set per agent whose members are connection ids
 * scored by a lease expiry, renewed by the owning node every third of the lease. A crashed node's connections
 * therefore stop counting when their lease runs out, without anyone cleaning up after it. Renewal extends the key's
 * own expiry too: without it the whole set vanished one lease after its last admission, however live its members.
 * While Redis is unreachable, admission falls back to this node's own count (a soft limit rather than refusing).
 */
export const createRedisConnectionCounter = (
  client: CommandConnection,
  prefix: string,
  options: ConnectionLeaseOptions,
): ConnectionCounter => {
  const leaseMs = options.leaseMs ?? 30_000;
  const log = options.log.child({ module: 'connection-counter' });
  const redis = client as WithAcquire;
  redis.defineCommand('phConnAcquire', {
    numberOfKeys: 1,
    lua: readFileSync(new URL('connection-counter.lua', import.meta.url), 'utf8'),
  });
  let everReady = redis.status === 'ready';
  if (!everReady) redis.once('ready', () => (everReady = true));
  const fallback = createMemoryConnectionCounter();
  const held = new Map<string, Set<string>>();
  // Hash-tagged by workspace like the store's keys, so a Redis Cluster keeps a workspace's keys on one slot.
  const redisKey = (key: string) => `${prefix}:conn:${key}`;

  const renew = async () => {
    if (held.size === 0) return;
    const expiry = Date.now() + leaseMs;
    // One pipeline per agent: on a Redis Cluster a pipeline may only hold keys of one slot.
    const renewals = [...held].map(([key, ids]) => {
      const pipeline = redis.pipeline();
      for (const id of ids) pipeline.zadd(redisKey(key), 'XX', expiry, id);
      pipeline.pexpireat(redisKey(key), expiry);
      return pipeline.exec();
    });
    const failed = (await Promise.allSettled(renewals)).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
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
