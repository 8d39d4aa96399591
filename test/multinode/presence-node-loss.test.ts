import { connect, type PlanHubClient } from '@planhub/client-sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REDIS_BACKENDS, startCluster, type Cluster } from '../helpers/cluster.ts';
import { eventually } from '../helpers/eventually.ts';

/** An agent whose node is killed shows offline on the other node within a few heartbeats, reported once. */
describe.each(REDIS_BACKENDS)('presence when a node dies (%s)', (backend) => {
  let cluster: Cluster;
  const clients: PlanHubClient[] = [];
  beforeAll(async () => {
    cluster = await startCluster({
      backend,
      nodes: 2,
      env: { PLANHUB_APPROVAL_POLICY: 'auto', PLANHUB_PRESENCE_HEARTBEAT_MS: '300' },
    });
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await cluster.close();
  });

  it("takes the dead node's agents offline with reason node_lost, and the agent's plan stays as it was", async () => {
    const board = await cluster.client('board', { node: 0, role: 'dashboard' });
    // Only node 1's address: when it dies the agent cannot fail over, as when its whole host is gone.
    const worker = await connect({ url: cluster.urls[1]!, agentId: 'worker', workspace: 'ws' });
    clients.push(worker);
    await worker.createPlan({ title: 'On node 1', steps: ['work'] });
    await worker.startPlan({});
    await worker.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    await eventually(async () => {
      expect((await board.getWorkspace({})).agents.find((a) => a.agent_id === 'worker')?.online).toBe(true);
    });
    // Its arrival logged too: the entry that makes it read online is written before agent_online is committed, and
    // a node that dies in between leaves the log with neither (nothing to take back).
    await eventually(async () => {
      const { events } = await board.getTaskEvents({ event_types: ['agent_online'], agent_id: 'worker' });
      expect(events).toHaveLength(1);
    });

    await cluster.kill(1);
    await vi.waitFor(
      async () => {
        const { events } = await board.getTaskEvents({ event_types: ['agent_offline'], agent_id: 'worker' });
        expect(
          events.map((e) => e.payload.reason),
          `node 0's log:\n${cluster.output(0)}`,
        ).toEqual(['node_lost']);
      },
      { timeout: 15_000, interval: 200 },
    );
    const agent = (await board.getWorkspace({})).agents.find((a) => a.agent_id === 'worker');
    expect(agent).toMatchObject({ online: false });
    expect(agent?.plans[0]?.steps[0]?.status).toBe('in_progress');
  });
});
