import { spawnSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { startRedisCluster } from '../helpers/redis-cluster.ts';
import { startRedisProcess } from '../helpers/redis-process.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    /** Seed nodes (host:port, comma-separated) of the suite's shared Redis Cluster (3 masters, 3 replicas). */
    redisClusterNodes: string;
  }
}

/**
 * Every Redis test runs against a redis-server of its own on a free port, never the machine's 6379. A missing
 * redis-server is a failure with the fix, never a silent skip.
 */
export default async function setup(project: TestProject) {
  const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (found.error || found.status !== 0)
    throw new Error(
      'redis-server is required by the test suite. Install it: apt-get install -y redis-server (or brew install redis).',
    );
  // Both at once: the Cluster's ~1-2 s start overlaps the single Redis'. Suites share them by key prefix.
  const [redis, cluster] = await Promise.all([startRedisProcess(), startRedisCluster()]);
  project.provide('redisUrl', redis.url);
  project.provide('redisClusterNodes', cluster.addresses.join(','));
  process.env.PLANHUB_TEST_REDIS_URL = redis.url;
  return async () => {
    await Promise.all([redis.dispose(), cluster.dispose()]);
  };
}
