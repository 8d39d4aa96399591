import type { EventEnvelope } from '@planhub/client-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_BACKENDS, startCluster, type Cluster } from '../helpers/cluster.ts';
import { recordEvents, startedPlan } from '../helpers/event-log.ts';

/** What a client sees when the node it is connected to is SIGKILLed (the tests run in order and share the nodes). */
describe.each(REDIS_BACKENDS)('a node dying under its clients (%s)', (backend) => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({ backend, env: { PLANHUB_APPROVAL_POLICY: 'auto' } });
  });
  afterAll(async () => cluster?.close());

  it('resumes a subscriber on another node with every event exactly once, in order', async () => {
    const ws = 'resume';
    // The watcher knows nodes 0 and 1; the producers work on node 2 throughout.
    const watcher = await cluster.client('watcher', {
      workspace: ws,
      url: [cluster.urls[0], cluster.urls[1]] as string[],
    });
    const producers = await Promise.all(['p0', 'p1'].map((id) => cluster.client(id, { node: 2, workspace: ws })));
    const seen = recordEvents(watcher);
    let reconnects = 0;
    watcher.on('reconnected', () => (reconnects += 1));
    // Two subscriptions: the resumed stream must serve both.
    await watcher.subscribeToTasks({ event_types: ['step_started', 'step_completed'] });
    await watcher.subscribeToTasks({ agent_id: 'p0', event_types: ['plan_created', 'plan_completed'] });
    await cluster.kill(1);

    const STEPS = 30;
    const steps = async (from: number, to: number) =>
      Promise.all(
        producers.map(async (producer) => {
          for (let i = from; i <= to; i++) {
            await producer.setStepStatus({ step_id: `step_${i}`, status: 'in_progress' });
            await producer.setStepStatus({ step_id: `step_${i}`, status: 'completed' });
          }
        }),
      );
    await Promise.all(
      producers.map((p, i) =>
        startedPlan(
          p,
          `work ${i}`,
          Array.from({ length: STEPS }, (_, k) => `step ${k + 1}`),
        ),
      ),
    );
    // Phase 1, live: the watcher's node dies while events keep coming.
    const phase1 = steps(1, 10);
    await seen.next(() => seen.events.length >= 10);
    const seenAtKill = seen.events.length;
    await cluster.kill(0);
    await phase1;
    // Phase 2: the watcher has no node to talk to (0 and 1 are down) while these events are committed.
    await steps(11, 20);
    expect(watcher.state).not.toBe('connected');
    // Node 1 comes back: the watcher reconnects there, resubscribes with the last id it saw, and catches up.
    await cluster.restart(1);
    await expect.poll(() => watcher.state, { timeout: 15_000 }).toBe('connected');
    // Phase 3, live again.
    await steps(21, STEPS);
    await Promise.all(producers.map((p) => p.completePlan({ status: 'completed' })));
    await seen.next((e) => e.event_type === 'plan_completed');
    await seen.next(
      (e) => e.source_agent === 'p1' && e.source_step_id === `step_${STEPS}` && e.event_type === 'step_completed',
    );

    // The truth: the workspace log, read through another node, with the union of both filters.
    const reader = await cluster.client('reader', { node: 2, workspace: ws });
    const all = await reader.getTaskEvents({ after_event: '0-0', limit: 500 });
    const expected = all.events.filter(
      (e: EventEnvelope) =>
        e.event_type === 'step_started' ||
        e.event_type === 'step_completed' ||
        (e.source_agent === 'p0' && (e.event_type === 'plan_created' || e.event_type === 'plan_completed')),
    );
    expect(expected).toHaveLength(2 * STEPS * 2 + 2);
    const ids = seen.events.map((e) => e.event_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expected.map((e) => e.event_id));
    expect(seenAtKill).toBeGreaterThan(0);
    expect(seenAtKill).toBeLessThan(expected.length);
    expect(reconnects).toBe(1);
  });

  it('applies each call of a burst exactly once when their node dies with some of them in flight', async () => {
    const ws = 'burst';
    // Node 0 stays down after the previous test; the burst goes to node 1 and fails over to node 2.
    const agent = await cluster.client('burst', { node: 1, workspace: ws });
    const watcher = await cluster.client('watcher', { node: 2, workspace: ws });
    const added = recordEvents(watcher);
    await watcher.subscribeToTasks({ agent_id: 'burst', event_types: ['step_added'] });
    await startedPlan(agent, 'P', ['a']);
    const CALLS = 40;
    const calls = Array.from({ length: CALLS }, (_, i) => agent.addStep({ description: `extra ${i}` }));
    // Kill once the node has applied some of the burst, so others are applied-but-unanswered or not yet sent.
    await added.next(() => added.events.length >= 3);
    await cluster.kill(1);
    const answers = await Promise.all(calls);
    const plan = await agent.getPlanStatus({});
    expect(plan.steps).toHaveLength(CALLS + 1);
    expect(new Set(answers.map((a) => a.step.step_id)).size).toBe(CALLS);
    expect(
      plan.steps
        .slice(1)
        .map((s) => s.description)
        .sort(),
    ).toEqual(Array.from({ length: CALLS }, (_, i) => `extra ${i}`).sort());
  });
});
