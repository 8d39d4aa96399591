import { Cluster, Redis } from 'ioredis';
import { expect, inject } from 'vitest';
import { testClusterNodes, type StoreFixtureKind } from '../helpers/stores.ts';

/** A plain client of the test's Redis (or Cluster), to write keys as no node would. */
export const rawClient = (kind: StoreFixtureKind): Redis | Cluster =>
  kind === 'redis'
    ? new Redis(inject('redisUrl'))
    : new Cluster(testClusterNodes().map((n) => ({ host: n.split(':')[0], port: Number(n.split(':')[1]) })));

/** The refusal a corrupt stored record answers: INTERNAL, naming it and what is wrong with it. */
export const corrupt = (name: string, detail: string) => ({
  code: 'INTERNAL',
  message: expect.stringContaining(`${name} is corrupt (${detail})`) as string,
});
