import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { afterEach, describe, it } from 'vitest';
import { conflictsIn } from '../helpers/concurrent-writers.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { runStepsInFlight } from '../helpers/steps-in-flight.ts';

describe.each(STORE_KINDS)('an owner completing many steps of its plan at once (%s store)', (kind) => {
  let h: Harness;
  const clients: PlanHubClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await h.close();
  });

  it('commits every completion on its first attempt, unblocks the fan-in once and loses nothing', async () => {
    // The per-agent call budget is not under test; the plan's documents are.
    h = await startHarness(kind, { approvalPolicy: 'auto', limits: { callsPerSecond: 100_000 } });
    await runStepsInFlight({
      client: async (agentId) => {
        const client = await connect({ url: h.url, agentId, workspace: 'ws' });
        clients.push(client);
        return client;
      },
      conflicts: async () => conflictsIn([await (await fetch(`${h.url}/metrics`)).text()]),
    });
  });
});
