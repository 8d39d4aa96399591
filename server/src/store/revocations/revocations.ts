import type { Logger } from 'pino';
import { firstReady } from '../redis/first-ready.ts';

/**
 * Revoked token ids (the `jti` claim), shared by every node on the Redis store. An entry lives until the token's own
 * expiry, after which the token is refused anyway, so the list stays as small as the set of live revoked tokens.
 */
export interface Revocations {
  /** Refuses the token with this jti from now until `expSeconds` (its exp claim), on every node. */
  revoke(jti: string, expSeconds: number): Promise<void>;
  isRevoked(jti: string): Promise<boolean>;
  /**
   * Whether this node has announced (or been told of) this jti's revocation and it is still live: what `onRevoked`
   * listeners have heard, asked synchronously, so a holder taken after a lookup misses no revocation in between.
   */
  announced(jti: string): boolean;
  /** Told of each jti revoked on any node (on Redis within one check interval), so live connections can be closed. */
  onRevoked(listener: (jti: string) => void): () => void;
  close(): void;
}

const READY_WAIT_MS = 1000;
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Each listener on its own: one that throws must not keep the others, or later revocations, from being told. */
export const listeners = (onError: (err: unknown) => void) => {
  const set = new Set<(jti: string) => void>();
  return {
    add: (listener: (jti: string) => void) => {
      set.add(listener);
      return () => void set.delete(listener);
    },
    tell: (jti: string) => {
      for (const listener of set)
        try {
          listener(jti);
        } catch (err) {
          onError(err);
        }
    },
    clear: () => set.clear(),
  };
};

export const createMemoryRevocations = (onError: (err: unknown) => void = () => undefined): Revocations => {
  const until = new Map<string, number>();
  const told = listeners(onError);
  return {
    revoke(jti, expSeconds) {
      const now = nowSeconds();
      for (const [id, exp] of until) if (exp < now) until.delete(id);
      until.set(jti, expSeconds);
      told.tell(jti);
      return Promise.resolve();
    },
    isRevoked: (jti) => Promise.resolve((until.get(jti) ?? -1) >= nowSeconds()),
    announced: (jti) => (until.get(jti) ?? -1) >= nowSeconds(),
    onRevoked: told.add,
    close: () => until.clear(),
  };
};

/** The few commands of an ioredis client this module uses (it never imports ioredis itself). */
interface RedisCommands {
  status: string;
  once(event: 'ready', listener: () => void): unknown;
  off(event: 'ready', listener: () => void): unknown;
  zadd(key: string, score: number, member: string): Promise<unknown>;
  zscore(key: string, member: string): Promise<string | null>;
  zremrangebyscore(key: string, min: string | number, max: string | number): Promise<unknown>;
  zrangebyscore(key: string, min: string | number, max: string | number): Promise<string[]>;
}

/**
 * One sorted set per deployment, `<prefix>:revoked-tokens`, jti scored by its expiry. Every node reads the live part
 * every `checkMs` to close connections of tokens revoked elsewhere; the handshake asks Redis directly.
 */
export const createRedisRevocations = (options: {
  redis: unknown;
  prefix: string;
  checkMs: number;
  log: Logger;
}): Revocations => {
  const redis = options.redis as RedisCommands;
  // A handshake right after startup waits (bounded) for the store's first connection.
  const ready = () => firstReady(redis, READY_WAIT_MS, () => redis.status === 'ready');
  const key = `${options.prefix}:revoked-tokens`;
  const told = listeners((err) => options.log.error({ err }, 'revocation listener failed'));
  let known = new Set<string>();
  // The first read announces every live entry too: a token looked up before it (Redis slow to come up) and revoked on
  // another node meanwhile would otherwise be held for good. Ending the holder of a revoked token is always right.
  const check = async () => {
    const live = new Set(await redis.zrangebyscore(key, nowSeconds(), '+inf'));
    for (const jti of live) if (!known.has(jti)) told.tell(jti);
    known = live;
  };
  const timer = setInterval(() => {
    check().catch((err: unknown) => options.log.debug({ err }, 'revoked-token check failed; retrying'));
  }, options.checkMs);
  timer.unref();
  void ready()
    .then(check)
    .catch(() => undefined);
  return {
    async revoke(jti, expSeconds) {
      await ready();
      await redis.zadd(key, expSeconds, jti);
      await redis.zremrangebyscore(key, '-inf', nowSeconds() - 1);
      if (!known.has(jti)) {
        known.add(jti);
        told.tell(jti);
      }
    },
    async isRevoked(jti) {
      await ready();
      const exp = await redis.zscore(key, jti);
      return exp !== null && Number(exp) >= nowSeconds();
    },
    announced: (jti) => known.has(jti),
    onRevoked: told.add,
    close: () => clearInterval(timer),
  };
};
