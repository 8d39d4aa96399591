import { afterAll, beforeAll, describe, it } from 'vitest';
import { REDIS_BACKENDS, startCluster, type Cluster } from '../helpers/cluster.ts';
import { conflictsIn } from '../helpers/concurrent-writers.ts';
import { runStepsInFlight } from '../helpers/steps-in-flight.ts';
import { rounds } from '../helpers/stress.ts';

describe.each(REDIS_BACKENDS)(
  'owners completing many steps of their plans at once across three server processes (%s)',
  (backend) => {
    // The same code on a Cluster: fewer steps there keep the suite's time in bounds (PLANHUB_STRESS scales both).
    const steps = rounds(backend === 'redis-cluster' ? 10 : 20);
    let cluster: Cluster;
    beforeAll(async () => {
      cluster = await startCluster({
        backend,
        env: { PLANHUB_APPROVAL_POLICY: 'auto', LOG_LEVEL: 'warn', PLANHUB_LIMIT_CALLS_PER_SECOND: '100000' },
      });
    });
    afterAll(async () => cluster?.close());

    it(`commits every completion on its first attempt on any node, unblocks the fan-in once and loses nothing (${steps} steps)`, async () => {
      await runStepsInFlight(
        {
          client: (agentId, index) => cluster.client(agentId, { node: index % 3, workspace: 'in-flight' }),
          conflicts: async () =>
            conflictsIn(await Promise.all(cluster.urls.map(async (url) => (await fetch(`${url}/metrics`)).text()))),
        },
        { steps },
      );
    });
  },
);
