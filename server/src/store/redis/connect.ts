import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { coalesceWrites } from './coalesced-writes.ts';

/** Where the Redis store connects: one Redis by URL, or a Redis Cluster by its seed nodes. */
export type RedisTarget = { url: string } | { clusterNodes: readonly string[] };

/** The store's command connection: every command the store sends works on a single Redis and on a Cluster alike. */
export type CommandConnection = Redis | Cluster;

export interface RedisConnections {
  commands: CommandConnection;
  /** A fresh pub/sub connection (pub/sub mode blocks other commands, so it is never the command connection). */
  subscriber(options: { connectionName: string }): CommandConnection;
  /** True on a Cluster (slots, failover, WAIT routed with the commit). */
  cluster: boolean;
}

export interface ConnectOptions {
  commandTimeoutMs: number;
  connectionName: string;
}

const retryStrategy = (attempt: number) => Math.min(50 * attempt, 1000);

/** host:port → { host, port }; the config schema already refused anything else. */
export const parseNode = (node: string) => {
  const at = node.lastIndexOf(':');
  return { host: node.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(node.slice(at + 1)) };
};

/**
 * The one place Redis connections are made. Commands fail fast (no offline queue, no resend): in-flight commands fail
 * on disconnect instead of being resent, and the caller retries with its request_id.
 */
export const connectRedis = (target: RedisTarget, options: ConnectOptions): RedisConnections => {
  const fastFail: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: options.commandTimeoutMs,
    // Named so an operator can tell PlanHub's connections apart in CLIENT LIST.
    connectionName: options.connectionName,
  };
  // No enableAutoPipelining (coalesced-writes.ts says why); the socket is corked per event-loop turn instead.
  if ('url' in target) {
    const commands = new Redis(target.url, { ...fastFail, retryStrategy });
    coalesceWrites(commands);
    return {
      commands,
      cluster: false,
      subscriber: ({ connectionName }) =>
        commands.duplicate({ autoResubscribe: false, enableAutoPipelining: false, connectionName }),
    };
  }
  const seeds = target.clusterNodes.map(parseNode);
  const commands = new Cluster(seeds, {
    enableOfflineQueue: false,
    redisOptions: fastFail,
    clusterRetryStrategy: retryStrategy,
    // After a failover the slot map must follow quickly; MOVED replies refresh it too, a dead node does not.
    slotsRefreshInterval: 1000,
    retryDelayOnFailover: 100,
  });
  return {
    commands,
    cluster: true,
    subscriber: ({ connectionName }) => clusterSubscriber(seeds, connectionName, options),
  };
};

/**
 * Events go out on one sharded channel per workspace (SPUBLISH), carried only by the shard that holds the
 * workspace's slot, so the subscriber is a Cluster with one subscriber connection per shard (ioredis follows slot
 * moves and failovers). A shard's subscriber may come back without a 'ready' on the Cluster; the store therefore
 * also reads every followed log back on topology changes and periodically (see `clusterResync`). A shard's
 * connection the network drops without closing it is found by PING and ended (silent-shard-subscriber.ts).
 */
const clusterSubscriber = (
  seeds: { host: string; port: number }[],
  connectionName: string,
  options: ConnectOptions,
): Cluster =>
  new Cluster(seeds, {
    shardedSubscribers: true,
    enableOfflineQueue: true,
    redisOptions: { connectionName, maxRetriesPerRequest: 0, commandTimeout: options.commandTimeoutMs },
    clusterRetryStrategy: retryStrategy,
    slotsRefreshInterval: 1000,
    retryDelayOnFailover: 100,
  });
