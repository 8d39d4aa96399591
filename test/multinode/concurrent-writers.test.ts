import { afterAll, beforeAll, describe, it } from 'vitest';
import { REDIS_BACKENDS, startCluster, type Cluster } from '../helpers/cluster.ts';
import { conflictsIn, runConcurrentWriters } from '../helpers/concurrent-writers.ts';

describe.each(REDIS_BACKENDS)(
  '50 concurrent writers in one workspace across three server processes (%s)',
  (backend) => {
    let cluster: Cluster;
    beforeAll(async () => {
      cluster = await startCluster({
        backend,
        env: {
          PLANHUB_APPROVAL_POLICY: 'auto',
          LOG_LEVEL: 'warn',
          // The per-agent call budget is not under test; the fan-ins, tasks, todos and plans are.
          PLANHUB_LIMIT_CALLS_PER_SECOND: '100000',
          PLANHUB_LIMIT_TASKS_PER_WORKSPACE: '100000',
        },
      });
    });
    afterAll(async () => cluster?.close());

    it('unblocks every fan-in once with all outputs on any node, refuses nothing and loses no update', async () => {
      await runConcurrentWriters({
        client: (agentId, index) => cluster.client(agentId, { node: index % 3, workspace: 'writers' }),
        conflicts: async () =>
          conflictsIn(await Promise.all(cluster.urls.map(async (url) => (await fetch(`${url}/metrics`)).text()))),
      });
    });
  },
);
