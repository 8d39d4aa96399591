import type { ServerBuild } from '../config.ts';
import { assertHealthy, startNodeServer, type NodeServer } from './processes.ts';
import { planhubEntry } from './planhub-entry.ts';
import type { BenchRedis } from './redis.ts';
import { PRESENCE_HEARTBEAT_MS } from '../load/departures.ts';

/** Key prefix of every PlanHub node (and the seeding store) in the run. */
export const BENCH_PREFIX = 'bench';

export interface Cluster {
  redis: BenchRedis;
  floorEcho: NodeServer;
  floorRedis: NodeServer;
  broadcastA: NodeServer;
  broadcastB: NodeServer;
  planhubA: NodeServer;
  planhubB: NodeServer;
  planhubMemory: NodeServer;
  /** Checked before every run: a figure measured against a dead or departing server would be meaningless. */
  assertHealthy(): Promise<void>;
  stop(): Promise<void>;
}

/** The environment of every PlanHub node the bench starts: on Redis under `prefix`, or on memory without a URL. */
export const planhubEnv = (redisUrl: string, prefix = BENCH_PREFIX): NodeJS.ProcessEnv => ({
  HOST: '127.0.0.1',
  REDIS_URL: redisUrl,
  REDIS_PREFIX: prefix,
  LOG_LEVEL: 'warn',
  // The load's agents start their plans themselves; approval by a person is not what is measured.
  PLANHUB_APPROVAL_POLICY: 'auto',
  PLANHUB_SECRET: '',
  // The many-plans workspace is seeded far past the default per-workspace quota; the quota is not what is measured.
  PLANHUB_LIMIT_WORKSPACE_BYTES: String(2 ** 40),
  // The per-agent call rate (200/s by default) is a policy, not a cost: on a fast machine 50 agents reached it before
  // the node's capacity, and the rate search stopped at refusals. The limiter still counts every call.
  PLANHUB_LIMIT_CALLS_PER_SECOND: '1000000',
  // The default, named here because each run waits out the previous run's departures by it (load/departures.ts).
  PLANHUB_PRESENCE_HEARTBEAT_MS: String(PRESENCE_HEARTBEAT_MS),
});

/**
 * The servers of the floor comparisons, each its own process: the floors (echo, echo + Redis, two broadcast nodes),
 * two PlanHub nodes on the run's private Redis, and one PlanHub node on the memory store. The load generator is this
 * process. stop() stops these servers; the Redis belongs to the caller.
 */
export const startCluster = async (redis: BenchRedis, server: ServerBuild): Promise<Cluster> => {
  const floor = 'test/bench/floors/echo-server.ts';
  const broadcast = 'test/bench/floors/broadcast-server.ts';
  const planhub = planhubEntry(server);
  const [floorEcho, floorRedis, broadcastA, broadcastB, planhubA, planhubB, planhubMemory] = await Promise.all([
    startNodeServer('floor-echo', floor, { FLOOR_MODE: 'echo' }),
    startNodeServer('floor-redis', floor, { FLOOR_MODE: 'redis', REDIS_URL: redis.url }),
    startNodeServer('floor-broadcast-a', broadcast, { REDIS_URL: redis.url }),
    startNodeServer('floor-broadcast-b', broadcast, { REDIS_URL: redis.url }),
    startNodeServer('planhub-redis-a', planhub, planhubEnv(redis.url)),
    startNodeServer('planhub-redis-b', planhub, planhubEnv(redis.url)),
    startNodeServer('planhub-memory', planhub, { ...planhubEnv(''), REDIS_URL: '' }),
  ]);
  const servers = [floorEcho, floorRedis, broadcastA, broadcastB, planhubA, planhubB, planhubMemory];
  return {
    redis,
    floorEcho,
    floorRedis,
    broadcastA,
    broadcastB,
    planhubA,
    planhubB,
    planhubMemory,
    async assertHealthy() {
      await Promise.all(servers.map(assertHealthy));
    },
    async stop() {
      await Promise.all(servers.map((s) => s.stop()));
    },
  };
};
