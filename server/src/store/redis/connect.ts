import { Cluster, Redis, type RedisOptions } from 'ioredis';

/** Where the Redis store connects: one Redis by URL, or a Redis Cluster by its seed nodes. */
export type RedisTarget = { url: string } | { clusterNodes: readonly string[] };

/** The store's command connection: every command the store sends works on a single Redis and on a Cluster alike. */
export type CommandConnection = Redis | Cluster;

export interface RedisConnections {
  commands: CommandConnection;
  /** A fresh pub/sub connection (pub/sub mode blocks other commands, so it is never the command connection). */
  subscriber(options: { connectionName: string }): Redis;
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
  // Commands issued in the same turn of the event loop (many calls' loads, commits and budget checks) go out in one
  // write: under load, one syscall per command was the node's largest single cost.
  const pipelined = { enableAutoPipelining: true };
  if ('url' in target) {
    const commands = new Redis(target.url, { ...fastFail, ...pipelined, retryStrategy });
    return {
      commands,
      cluster: false,
      subscriber: ({ connectionName }) =>
        commands.duplicate({ autoResubscribe: false, enableAutoPipelining: false, connectionName }),
    };
  }
  const seeds = target.clusterNodes.map(parseNode);
  const commands = new Cluster(seeds, {
    ...pipelined,
    enableOfflineQueue: false,
    redisOptions: fastFail,
    clusterRetryStrategy: retryStrategy,
    // After a failover the slot map must follow quickly; MOVED replies refresh it too, a dead node does not.
    slotsRefreshInterval: 1000,
    retryDelayOnFailover: 100,
  });
  return { commands, cluster: true, subscriber: ({ connectionName }) => clusterSubscriber(seeds, connectionName) };
};

/**
 * The event channel is a plain PUBLISH, which a Cluster forwards to every node, so one connection to any node hears
 * every workspace. It is a plain connection (not the Cluster's own subscriber) so the feed sees each reconnect as a
 * 'ready' and reads back the gap; when its node dies it moves on to the next seed node instead of waiting for it.
 */
const clusterSubscriber = (seeds: { host: string; port: number }[], connectionName: string): Redis => {
  let next = 0;
  const first = seeds[0] ?? { host: '127.0.0.1', port: 6379 };
  const subscriber: Redis = new Redis({
    host: first.host,
    port: first.port,
    connectionName,
    autoResubscribe: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => {
      next = (next + 1) % seeds.length;
      const seed = seeds[next] ?? first;
      // ioredis reads host and port again on every reconnect.
      subscriber.options.host = seed.host;
      subscriber.options.port = seed.port;
      return attempt <= seeds.length ? 0 : retryStrategy(attempt - seeds.length);
    },
  });
  return subscriber;
};
