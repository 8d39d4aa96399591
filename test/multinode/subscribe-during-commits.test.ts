import type { EventEnvelope, PlanHubClient } from '@planhub/client-sdk';
import { connect } from '@planhub/client-sdk';
import type { PlanHubServer } from '@planhub/server';
import { createServer } from '@planhub/server';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { REDIS_BACKENDS } from '../helpers/cluster.ts';
import { eventually } from '../helpers/eventually.ts';
import { recordEvents, startedPlan, type EventLog } from '../helpers/event-log.ts';
import { uniquePrefix } from '../helpers/servers.ts';
import { deleteClusterPrefix, deletePrefix, testClusterNodes } from '../helpers/stores.ts';
import { rounds } from '../helpers/stress.ts';

const WRITERS = 3;

/**
 * Subscribing (with the default history replay) while other agents commit on another node: every matching event
 * reaches each subscriber exactly once, whether it fell into the replay, the live feed, or the seam between them.
 */
describe.each(REDIS_BACKENDS)('subscribing while events are committed on another node (%s)', (backend) => {
  const redisUrl = inject('redisUrl');
  const clusterNodes = backend === 'redis-cluster' ? testClusterNodes() : undefined;
  const prefix = uniquePrefix();
  // The same code on a Cluster: fewer writes there keep the suite's time in bounds (PLANHUB_STRESS scales both).
  const perWriter = Math.min(190, rounds(backend === 'redis-cluster' ? 10 : 20));
  const servers: PlanHubServer[] = [];
  const clients: PlanHubClient[] = [];
  const urls: string[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const server = createServer({
        port: 0,
        logLevel: 'silent',
        ...(clusterNodes ? { redisClusterNodes: clusterNodes } : { redisUrl }),
        redisPrefix: prefix,
        approvalPolicy: 'auto',
      });
      servers.push(server);
      urls.push((await server.listen()).url);
    }
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    for (const s of servers) await s.close();
    await (clusterNodes ? deleteClusterPrefix(clusterNodes, prefix) : deletePrefix(redisUrl, prefix));
  });

  const client = async (agentId: string, node: number) => {
    const c = await connect({ url: [urls[node]!, ...urls.filter((_, i) => i !== node)], agentId, workspace: 'ws' });
    clients.push(c);
    return c;
  };

  it(`delivers each event once to subscribers that joined at any moment of the writes (${perWriter} writes each)`, async () => {
    const writers = await Promise.all(Array.from({ length: WRITERS }, (_, i) => client(`w${i}`, 1)));
    for (const [i, w] of writers.entries()) await startedPlan(w, `Plan ${i}`, ['first']);
    let written = 0;
    const writing = Promise.all(
      writers.map(async (w) => {
        for (let k = 0; k < perWriter; k++) {
          await w.addStep({ description: `step ${k}` });
          written += 1;
        }
      }),
    );
    const total = WRITERS * perWriter;
    const subscribers: EventLog[] = [];
    const count = rounds(4);
    for (let i = 0; i < count; i++) {
      const threshold = Math.floor((i * total) / count);
      await eventually(() => expect(written).toBeGreaterThanOrEqual(threshold));
      const s = await client(`s${i}`, 0);
      subscribers.push(recordEvents(s));
      await s.subscribeToTasks({ event_types: ['step_added'] });
    }
    await writing;

    const reader = await client('reader', 0);
    const logged: EventEnvelope[] = [];
    for (let after = '0-0'; ;) {
      const page = await reader.getTaskEvents({ event_types: ['step_added'], after_event: after, limit: 500 });
      logged.push(...page.events);
      if (page.count === 0 || page.last_event_id === null) break;
      after = page.last_event_id;
    }
    const expected = logged.map((e) => e.event_id);
    expect(expected).toHaveLength(total);
    for (const [i, log] of subscribers.entries()) {
      await eventually(() => expect(log.events.length, `subscriber ${i}`).toBeGreaterThanOrEqual(total));
      expect(
        log.events.map((e) => e.event_id),
        `subscriber ${i}`,
      ).toEqual(expected);
    }
  });

  it('resumes on the other node after the last delivered event, not after the old stream position', async () => {
    const planner = await client('planner', 1);
    const parent = await client('parent', 0);
    const seen = recordEvents(parent);
    const states: string[] = [];
    parent.on('subscriptions', (info) => states.push(info.state));
    await parent.subscribeToTasks({ agent_id: 'planner', event_types: ['plan_created'] });
    await startedPlan(planner, 'First', ['a']);
    const first = await seen.next((e) => e.event_type === 'plan_created');
    // Events the parent does not subscribe to move its old stream forward, not its cursor.
    await planner.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await planner.completePlan({ status: 'completed', summary: 'done' });
    await servers[0]!.close();
    await eventually(() => expect(parent.subscriptionState.state).toBe('live'));
    expect(states).toEqual(['live', 'renewing', 'live']);
    expect(parent.lastEventId).toBe(first.event_id);
    await planner.createPlan({ title: 'Second', steps: ['b'] });
    await seen.next((e) => e.source_plan_title === 'Second');
    expect(seen.events.map((e) => e.source_plan_title)).toEqual(['First', 'Second']);
  });
});
