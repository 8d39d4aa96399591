import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { afterEach, describe, it } from 'vitest';
import { conflictsIn, runConcurrentWriters } from '../helpers/concurrent-writers.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

describe.each(STORE_KINDS)('50 concurrent writers in one workspace (%s store)', (kind) => {
  let h: Harness;
  const clients: PlanHubClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await h.close();
  });

  it('unblocks every fan-in once with all outputs, refuses nothing and loses no update', async () => {
    // The per-agent call budget is not under test; the fan-ins, tasks, todos and plans are.
    h = await startHarness(kind, {
      approvalPolicy: 'auto',
      limits: { callsPerSecond: 100_000, tasksPerWorkspace: 100_000 },
    });
    await runConcurrentWriters({
      client: async (agentId) => {
        const client = await connect({ url: h.url, agentId, workspace: 'ws' });
        clients.push(client);
        return client;
      },
      conflicts: async () => conflictsIn([await (await fetch(`${h.url}/metrics`)).text()]),
    });
  });
});
