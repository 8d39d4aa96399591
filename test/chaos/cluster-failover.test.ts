import type { PlanHubClient } from '@planhub/client-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { eventually } from '../helpers/eventually.ts';
import { recordEvents, startedPlan, type EventLog } from '../helpers/event-log.ts';
import { keySlot, startRedisCluster, type ClusterNode, type RedisCluster } from '../helpers/redis-cluster.ts';
import { uniquePrefix } from '../helpers/servers.ts';
import { rounds } from '../helpers/stress.ts';

const WS = 'failover';
const WRITERS = 3;
const STEPS = rounds(12);
const PARENTS = 3;
/** Enough retries (with the SDK's backoff) to ride out detection (node timeout 1 s) plus the replica's promotion. */
const RETRIES = 30;

/**
 * The master serving a workspace's slot is SIGKILLed while agents on two PlanHub nodes write, parents wait on a
 * fan-in and a dashboard watches. Commits wait for one replica (PLANHUB_REDIS_WAIT_REPLICAS=1), so what was
 * acknowledged is on the replica that takes over. Both nodes' pub/sub connections start on the master that dies.
 */
describe('a Redis Cluster master killed mid-load', () => {
  let redis: RedisCluster;
  let cluster: Cluster;
  let victim: ClusterNode;
  beforeAll(async () => {
    redis = await startRedisCluster({ nodeTimeoutMs: 1000 });
    const prefix = uniquePrefix();
    victim = await redis.masterOf(await keySlot(redis.nodes[0]?.port ?? 0, `${prefix}:{${WS}}:events`));
    cluster = await startCluster({
      nodes: 2,
      prefix,
      clusterNodes: [victim.address, ...redis.addresses.filter((a) => a !== victim.address)],
      env: { PLANHUB_APPROVAL_POLICY: 'auto', PLANHUB_REDIS_WAIT_REPLICAS: '1' },
    });
  });
  afterAll(async () => {
    await cluster?.close().catch(() => undefined);
    await redis?.dispose();
  });

  it('loses no acknowledged call, no event, and wakes every waiting parent', { timeout: 120_000 }, async () => {
    const client = (id: string, node: number, role?: 'dashboard') =>
      cluster.client(id, { node, workspace: WS, retries: RETRIES, ...(role ? { role } : {}) });
    const board = await client('board', 1, 'dashboard');
    const boardLog = recordEvents(board);
    await board.subscribeToTasks({ event_types: ['step_completed', 'step_unblocked'] });

    // Fan-in: each parent (node 0) waits on its child's (node 1) final step.
    const parents: { agent: PlanHubClient; log: EventLog; step: string }[] = [];
    const children: PlanHubClient[] = [];
    for (let i = 0; i < PARENTS; i++) {
      const parent = await client(`parent-${i}`, 0);
      const child = await client(`child-${i}`, 1);
      const log = recordEvents(parent);
      await startedPlan(parent, `Coordinate ${i}`, ['Spawn the child']);
      await parent.subscribeToTasks({ event_types: ['step_unblocked'] });
      await startedPlan(child, `Child ${i}`, ['Work', 'final step']);
      const dep = await parent.addDependentStep({
        description: 'Review the child',
        depends_on: [{ agent_id: `child-${i}`, step_id: 'step_2' }],
      });
      parents.push({ agent: parent, log, step: dep.step_id });
      children.push(child);
    }

    // Writers, alternating nodes: every acknowledged completion is recorded.
    const acked: string[] = [];
    let killAt: () => void = () => {};
    const halfway = new Promise<void>((resolve) => (killAt = resolve));
    const writers = await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        const writer = await client(`writer-${w}`, w % 2);
        await startedPlan(
          writer,
          `Load ${w}`,
          Array.from({ length: STEPS }, (_, k) => `step ${k + 1}`),
        );
        return writer;
      }),
    );
    const load = Promise.all(
      writers.map(async (writer, w) => {
        for (let k = 1; k <= STEPS; k++) {
          await writer.setStepStatus({ step_id: `step_${k}`, status: 'in_progress' });
          await writer.setStepStatus({ step_id: `step_${k}`, status: 'completed' });
          acked.push(`writer-${w}:step_${k}`);
          if (acked.length === Math.ceil((WRITERS * STEPS) / 3)) killAt();
        }
      }),
    );

    await halfway;
    await victim.kill();
    // The children finish while the slot's master is gone or just replaced: the fan-in fires across the failover.
    await Promise.all(
      children.map(async (child, i) => {
        await child.setStepStatus({ step_id: 'step_1', status: 'completed' });
        await child.completeStepWithOutput({ step_id: 'step_2', output: { child: i }, result: 'done' });
        acked.push(`child-${i}:step_1`, `child-${i}:step_2`);
      }),
    );
    await load;
    await redis.waitHealthy();

    // 1. Every acknowledged write is readable after the failover.
    for (const [w, writer] of writers.entries()) {
      const status = await writer.getPlanStatus({});
      expect(status.steps.map((s) => s.status)).toEqual(Array.from({ length: STEPS }, () => 'completed'));
      expect(acked.filter((a) => a.startsWith(`writer-${w}:`))).toHaveLength(STEPS);
    }
    for (const child of children)
      expect((await child.getPlanStatus({})).steps.map((s) => s.status)).toEqual(['completed', 'completed']);

    // 2. Every waiting parent wakes, and its step shows the child's output.
    for (const [i, parent] of parents.entries()) {
      await parent.log.next((e) => e.event_type === 'step_unblocked' && e.source_step_id === parent.step);
      const status = await parent.agent.getPlanStatus({});
      expect(status.received_outputs).toEqual({ [`child-${i}:step_2`]: { child: i } });
    }

    // 3. The dashboard saw every acknowledged completion exactly once. This depends on the event feed reading back
    // what pub/sub lost while its connection moved off the dead master.
    const completed = () =>
      boardLog.events
        .filter((e) => e.event_type === 'step_completed')
        .map((e) => `${e.source_agent}:${e.source_step_id}`);
    await eventually(() => expect(new Set(completed())).toEqual(new Set(acked)));
    expect(completed()).toHaveLength(acked.length);
    expect(boardLog.of('step_unblocked')).toHaveLength(PARENTS);
  });
});
