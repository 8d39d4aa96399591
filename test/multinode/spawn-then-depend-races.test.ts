import { afterAll, beforeAll, describe, it } from 'vitest';
import { REDIS_BACKENDS, startCluster, type Cluster } from '../helpers/cluster.ts';
import { awaitedStepRaceRound } from '../helpers/awaited-race.ts';
import { spawnRaceRound } from '../helpers/spawn-race.ts';
import { rounds } from '../helpers/stress.ts';

/**
 * Spawn-then-depend raced across three server processes on one Redis (or one Redis Cluster): the parent on one node
 * adds dependencies on subagents that connect to the other nodes and create and finish their plans meanwhile.
 */
describe.each(REDIS_BACKENDS)('spawn-then-depend across three server processes (%s)', (backend) => {
  // The same code on a Cluster: fewer rounds there keep the suite's time in bounds (PLANHUB_STRESS scales both).
  const ROUNDS = rounds(backend === 'redis-cluster' ? 2 : 3);
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({ backend, env: { PLANHUB_APPROVAL_POLICY: 'auto', LOG_LEVEL: 'warn' } });
  });
  afterAll(async () => cluster?.close());

  it(`unblocks every waiting step exactly once with every output (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      let next = 0;
      // A workspace per round; agents go to the nodes in turn, the parent on node 0.
      const connect = (id: string) => cluster.client(id, { node: next++ % 3, workspace: `spawn-${round}` });
      await spawnRaceRound(connect, { tag: `r${round}`, subs: 5, waits: 3 });
    }
  });

  it(`releases every wait on a step its plan never got, raced with the plan's end (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      let next = 0;
      // The owner on node 0, the waiters on the nodes in turn.
      const connect = (id: string) => cluster.client(id, { node: next++ % 3, workspace: `awaited-${round}` });
      await awaitedStepRaceRound(connect, { tag: `a${round}`, waiters: 6 });
    }
  });
});
