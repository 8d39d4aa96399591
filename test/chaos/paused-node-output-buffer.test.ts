import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startedPlan } from '../helpers/event-log.ts';
import { eventually } from '../helpers/eventually.ts';
import { rounds } from '../helpers/stress.ts';
import {
  clientOn,
  deliveryReport,
  logOf,
  startChaosCluster,
  subscriberClients,
  type ChaosCluster,
  watch,
} from './support/chaos-cluster.ts';

const TYPES = ['plan_created', 'step_started', 'step_completed'] as const;
/** Filler published on the node's channels: any traffic the paused node cannot read counts toward the limit. */
const FILLER = 'x'.repeat(16 * 1024);
/** What Redis holds for the paused node before the limit is lowered: well past anything in flight. */
const QUEUED = 512 * 1024;

/**
 * A node stops reading (SIGSTOP: a stuck machine, a long pause) while its workspaces keep changing. Redis queues
 * what it publishes to the node until the pub/sub output-buffer limit (lowered here so it takes a moment, not
 * a flood of minutes), then closes the node's subscriber and drops the queue: the events in it exist only in the logs.
 */
describe('a paused node cut off by the pub/sub output-buffer limit', () => {
  let chaos: ChaosCluster;
  beforeAll(async () => {
    chaos = await startChaosCluster();
  });
  afterAll(async () => {
    chaos?.cluster.signal(0, 'SIGCONT');
    await chaos?.close();
  });

  it('delivers every event committed while it was paused once it resumes', async () => {
    const { cluster, admin } = chaos;
    const SPACES = rounds(3);
    const STEPS = rounds(10);
    // New workspaces: node 0 has delivered none of their events when it is paused.
    const spaces = Array.from({ length: SPACES }, (_, i) => `paused-${i}`);
    const watchers = await Promise.all(spaces.map((ws) => watch(cluster, 0, ws, TYPES)));
    const before = new Set((await subscriberClients(admin, cluster.prefix)).map((c) => c.id));

    const stuck = new Set<string>();
    /** Publishes filler on every channel PlanHub subscribes to; true once a subscriber that stopped reading is gone. */
    const flood = async () => {
      const channels = [
        ...((await admin.pubsub('SHARDCHANNELS', `${cluster.prefix}*`)) as string[]).map((c) => ['s', c] as const),
        ...((await admin.pubsub('CHANNELS', `${cluster.prefix}*`)) as string[]).map((c) => ['p', c] as const),
      ];
      for (const [kind, channel] of channels)
        for (let n = 0; n < 4; n++)
          await (kind === 's' ? admin.spublish(channel, FILLER) : admin.publish(channel, FILLER));
      const now = await subscriberClients(admin, cluster.prefix);
      // Redis writes what the socket takes before it runs the next command: this much left means it takes no more.
      for (const c of now) if (c.omem >= QUEUED) stuck.add(c.id);
      const live = new Set(now.map((c) => c.id));
      return [...stuck].some((id) => before.has(id) && !live.has(id));
    };

    cluster.signal(0, 'SIGSTOP');
    // First fill what the sockets buffer, so the workspaces' events wait in Redis (where the cut drops them), not in
    // the paused node's socket (where it would read them on resuming).
    await eventually(
      async () => {
        await flood();
        expect(stuck.size).toBeGreaterThan(0);
      },
      { timeout: 30_000 },
    );
    // Connected only now: an agent's connection is an event of its workspace (agent_online).
    const producers = await Promise.all(spaces.map((ws) => clientOn(cluster, 1, `producer-${ws}`, ws)));
    const half = Math.ceil(STEPS / 2);
    const work = async (from: number, to: number) =>
      Promise.all(
        producers.map(async (producer) => {
          for (let i = from; i <= to; i++) {
            await producer.setStepStatus({ step_id: `step_${i}`, status: 'in_progress' });
            await producer.setStepStatus({ step_id: `step_${i}`, status: 'completed' });
          }
        }),
      );
    await Promise.all(
      producers.map((p) =>
        startedPlan(
          p,
          'while paused',
          Array.from({ length: STEPS }, (_, k) => `step ${k + 1}`),
        ),
      ),
    );
    await work(1, half);
    // Then lower the limit (minutes by default; what it is does not matter, only that it is reached) and flood on
    // until Redis closes the subscriber that stopped reading.
    await admin.config('SET', 'client-output-buffer-limit', 'pubsub 256kb 64kb 1');
    await eventually(async () => expect(await flood()).toBe(true), { timeout: 30_000 });
    // Committed after the cut, still paused: nobody is subscribed for node 0 now.
    await work(half + 1, STEPS);
    cluster.signal(0, 'SIGCONT');

    const expectedCount = 1 + 2 * STEPS;
    const reports = await Promise.all(
      watchers.map(async (watcher) => {
        const truth = await clientOn(cluster, 1, `reader-${watcher.workspace}`, watcher.workspace);
        const expected = await logOf(truth, TYPES);
        expect(expected).toHaveLength(expectedCount);
        await eventually(() => expect(watcher.log.events.length).toBeGreaterThanOrEqual(expectedCount)).catch(
          () => undefined,
        );
        return deliveryReport(watcher, expected);
      }),
    );
    // The paused node's log goes with a failure only: it tells whether and when it resynced.
    expect(
      reports.filter((r) => r.lost > 0 || r.duplicated > 0 || r.outOfOrder),
      cluster.output(0),
    ).toEqual([]);
  }, 120_000);
});
