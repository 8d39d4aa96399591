import type { PlanHubClient } from '@planhub/client-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startedPlan } from '../helpers/event-log.ts';
import { eventually } from '../helpers/eventually.ts';
import { rounds } from '../helpers/stress.ts';
import {
  clientOn,
  deliveryReport,
  logOf,
  startChaosCluster,
  watch,
  type ChaosCluster,
  type Watcher,
} from './support/chaos-cluster.ts';

const TYPES = ['plan_created', 'step_started', 'step_completed'] as const;

/** A producer's steady work in its workspace: a plan, then each step started and completed. */
const produce = async (producer: PlanHubClient, steps: number) => {
  await startedPlan(
    producer,
    'load',
    Array.from({ length: steps }, (_, i) => `step ${i + 1}`),
  );
  for (let i = 1; i <= steps; i++) {
    await producer.setStepStatus({ step_id: `step_${i}`, status: 'in_progress' });
    await producer.setStepStatus({ step_id: `step_${i}`, status: 'completed' });
  }
};

/**
 * `CLIENT KILL TYPE pubsub` drops every node's subscriber again and again (every few tens of milliseconds) while
 * events are committed. Each wave opens new workspaces (watched on node 0, written through node 1) while the earlier
 * waves' load goes on, so many a workspace's first events are published while node 0 is reconnecting, before it
 * delivered any event of that workspace.
 */
describe('every pub/sub client killed during load', () => {
  let chaos: ChaosCluster;
  beforeAll(async () => {
    chaos = await startChaosCluster();
  });
  afterAll(async () => chaos?.close());

  it('loses no event of any subscriber, in new workspaces too', async () => {
    const { cluster, admin } = chaos;
    const WAVES = rounds(3);
    const PER_WAVE = 3;
    const STEPS = rounds(10);
    const watchers: Watcher[] = [];
    const load: Promise<void>[] = [];
    let kills = 0;
    let stopped = false;
    // Fault injection paced at random, not a synchronization: it runs until the load is over.
    const killer = (async () => {
      while (!stopped) {
        kills += Number(await admin.client('KILL', 'TYPE', 'pubsub'));
        await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 60));
      }
    })();
    try {
      for (let wave = 0; wave < WAVES; wave++) {
        const spaces = Array.from({ length: PER_WAVE }, (_, i) => `kill-${wave}-${i}`);
        watchers.push(...(await Promise.all(spaces.map((ws) => watch(cluster, 0, ws, TYPES, 'agent')))));
        const producers = await Promise.all(spaces.map((ws) => clientOn(cluster, 1, `producer-${ws}`, ws)));
        load.push(...producers.map((p) => produce(p, STEPS)));
      }
      await Promise.all(load);
    } finally {
      stopped = true;
      await killer;
    }
    expect(kills).toBeGreaterThan(0);

    const expectedCount = 1 + 2 * STEPS;
    const reports = await Promise.all(
      watchers.map(async (watcher) => {
        const reader = await clientOn(cluster, 1, `reader-${watcher.workspace}`, watcher.workspace);
        const expected = await logOf(reader, TYPES);
        expect(expected).toHaveLength(expectedCount);
        // Until every event arrived, or the patience ran out: the report then says what is missing.
        await eventually(() => expect(watcher.log.events.length).toBeGreaterThanOrEqual(expectedCount)).catch(
          () => undefined,
        );
        return deliveryReport(watcher, expected);
      }),
    );
    expect(reports.filter((r) => r.lost > 0 || r.duplicated > 0 || r.outOfOrder)).toEqual([]);
  }, 120_000);
});
