import type { PlanHubClient } from '@planhub/client-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvents, startedPlan, type EventLog } from '../helpers/event-log.ts';
import { eventually } from '../helpers/eventually.ts';
import { rounds } from '../helpers/stress.ts';
import { clientOn, startChaosCluster, type ChaosCluster } from './support/chaos-cluster.ts';

const UNBLOCKED = { event_types: ['step_unblocked'] } as Parameters<PlanHubClient['subscribeToTasks']>[0];

interface Family {
  workspace: string;
  child: PlanHubClient;
  /** The parent's connection to node 0, waiting for its step to unblock. */
  waiter: PlanHubClient;
  log: EventLog;
}

/**
 * Parents wait on node 0 for their dependent step to unblock; node 0 is killed and restarted (it starts knowing
 * nothing of their workspaces), the parents reconnect and renew their subscriptions, then every pub/sub client is
 * dropped again and again while the children complete the steps the parents wait for (on node 1).
 */
describe('a node restart and pub/sub drops while parents wait for step_unblocked', () => {
  let chaos: ChaosCluster;
  beforeAll(async () => {
    chaos = await startChaosCluster();
  });
  afterAll(async () => chaos?.close());

  it('wakes every waiting parent', async () => {
    const { cluster, admin } = chaos;
    const PARENTS = rounds(20);
    const families = await Promise.all(
      Array.from({ length: PARENTS }, async (_, i): Promise<Family> => {
        const workspace = `family-${i}`;
        // The parent works through node 1 and waits through node 0: its agent stays online across node 0's restart,
        // so the reconnect writes nothing to the workspace log.
        const parent = await clientOn(cluster, 1, 'parent', workspace);
        const child = await clientOn(cluster, 1, 'child', workspace);
        await startedPlan(parent, 'parent', ['spawn the child']);
        await startedPlan(child, 'child', ['final step']);
        await parent.addDependentStep({
          description: 'review the child',
          depends_on: [{ agent_id: 'child', step_id: 'step_1' }],
        });
        const waiter = await clientOn(cluster, 0, 'parent', workspace);
        const log = recordEvents(waiter);
        await waiter.subscribeToTasks(UNBLOCKED);
        return { workspace, child, waiter, log };
      }),
    );

    await cluster.kill(0);
    await cluster.restart(0);
    await eventually(() => expect(families.filter((f) => f.waiter.state !== 'connected')).toEqual([]), {
      timeout: 30_000,
    });
    // Queued behind the client's own renewal on the same connection: once answered, the renewed stream is live.
    await Promise.all(families.map((f) => f.waiter.subscribeToTasks(UNBLOCKED)));

    let stopped = false;
    // Fault injection paced at random, not a synchronization: it runs until every child has completed.
    const killer = (async () => {
      while (!stopped) {
        await admin.client('KILL', 'TYPE', 'pubsub');
        await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 60));
      }
    })();
    try {
      await Promise.all(families.map((f) => f.child.setStepStatus({ step_id: 'step_1', status: 'completed' })));
    } finally {
      stopped = true;
      await killer;
    }

    // The truth: every parent's step did unblock.
    await eventually(() => expect(families.filter((f) => f.log.of('step_unblocked').length === 0)).toEqual([])).catch(
      () => undefined,
    );
    const deaf = families.filter((f) => f.log.of('step_unblocked').length !== 1).map((f) => f.workspace);
    expect(deaf).toEqual([]);
  }, 120_000);
});
