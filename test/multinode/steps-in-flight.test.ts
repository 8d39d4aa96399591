import { afterAll, beforeAll, describe, it } from 'vitest';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { conflictsIn } from '../helpers/concurrent-writers.ts';
import { runStepsInFlight } from '../helpers/steps-in-flight.ts';

describe('owners completing many steps of their plans at once across three server processes', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({
      env: { PLANHUB_APPROVAL_POLICY: 'auto', LOG_LEVEL: 'warn', PLANHUB_LIMIT_CALLS_PER_SECOND: '100000' },
    });
  });
  afterAll(async () => cluster?.close());

  it('commits every completion on its first attempt on any node, unblocks the fan-in once and loses nothing', async () => {
    await runStepsInFlight({
      client: (agentId, index) => cluster.client(agentId, { node: index % 3, workspace: 'in-flight' }),
      conflicts: async () =>
        conflictsIn(await Promise.all(cluster.urls.map(async (url) => (await fetch(`${url}/metrics`)).text()))),
    });
  });
});
