import type { PlanHubClient, SubscriptionState } from '@planhub/client-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { eventually } from '../helpers/eventually.ts';
import { recordEvents, startedPlan, type EventLog } from '../helpers/event-log.ts';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.ts';
import { rounds } from '../helpers/stress.ts';

/** Renewals fail fast and retry fast here: the test waits on how often they failed, never on time. */
const RENEWAL_BACKOFF = { baseMs: 50, maxMs: 400 };
const FAILED_RENEWALS = 2;

interface Subscriber {
  client: PlanHubClient;
  log: EventLog;
  states: SubscriptionState[];
}

/**
 * Failing over while Redis is down: the subscribers' node dies, they reconnect to the other node, whose calls fail
 * (no store) so renewing their subscriptions fails again and again. Once Redis is back the renewal succeeds and every
 * subscriber receives every later event exactly once; the application saw renewing → failed-retrying → live.
 */
describe('subscription renewal through a node kill during a Redis outage', () => {
  let redis: RedisProcess;
  let cluster: Cluster;

  beforeAll(async () => {
    redis = await startRedisProcess({ durable: true });
    cluster = await startCluster({ nodes: 2, redisUrl: redis.url, env: { PLANHUB_APPROVAL_POLICY: 'auto' } });
  });
  afterAll(async () => {
    await cluster?.close();
    await redis?.dispose();
  });

  it('keeps renewing until Redis is back, then loses and duplicates nothing', async () => {
    const writer = await cluster.client('writer', { node: 1 });
    await startedPlan(writer, 'Work', ['first']);
    const subscribers: Subscriber[] = [];
    for (let i = 0; i < rounds(3); i++) {
      const client = await cluster.client(`parent${i}`, { node: 0, renewalBackoff: RENEWAL_BACKOFF });
      const states: SubscriptionState[] = [];
      client.on('subscriptions', (info) => states.push(info.state));
      // Expected: the first renewal failure is also reported as an application error.
      client.on('error', () => undefined);
      const log = recordEvents(client);
      await client.subscribeToTasks({ agent_id: 'writer', event_types: ['plan_created', 'step_added'] });
      subscribers.push({ client, log, states });
    }
    await writer.addStep({ description: 'before the outage' });
    for (const s of subscribers) await s.log.next((e) => e.event_type === 'step_added');

    await redis.kill();
    await cluster.kill(0);
    for (const s of subscribers)
      await eventually(() =>
        expect(s.client.subscriptionState).toMatchObject({
          state: 'failed-retrying',
          attempt: expect.any(Number) as number,
        }),
      );
    for (const s of subscribers)
      await eventually(() => expect(s.client.subscriptionState.attempt).toBeGreaterThanOrEqual(FAILED_RENEWALS));
    expect(subscribers.every((s) => s.client.state === 'connected')).toBe(true);

    await redis.start();
    for (const s of subscribers) await eventually(() => expect(s.client.subscriptionState.state).toBe('live'));
    const later = rounds(10);
    for (let k = 0; k < later; k++) await writer.addStep({ description: `after ${k}` });

    const { events } = await writer.getTaskEvents({ agent_id: 'writer', after_event: '0-0', limit: 500 });
    const expected = events
      .filter((e) => e.event_type === 'plan_created' || e.event_type === 'step_added')
      .map((e) => e.event_id);
    for (const [i, s] of subscribers.entries()) {
      await eventually(() => expect(s.log.events.length, `subscriber ${i}`).toBeGreaterThanOrEqual(expected.length));
      expect(
        s.log.events.map((e) => e.event_id),
        `subscriber ${i}`,
      ).toEqual(expected);
      const outage = s.states.slice(s.states.indexOf('renewing'));
      expect(s.states[0], `subscriber ${i}`).toBe('live');
      expect(outage[0], `subscriber ${i}`).toBe('renewing');
      expect(outage, `subscriber ${i}`).toContain('failed-retrying');
      expect(outage.at(-1), `subscriber ${i}`).toBe('live');
    }
  });
});
