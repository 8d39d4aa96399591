import { CALLS_IN_FLIGHT_PER_CONNECTION } from '@planhub/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { CallSlots } from '../../client-sdk/src/call-slots.ts';

/**
 * A node answers a connection's calls past CALLS_IN_FLIGHT_PER_CONNECTION unanswered at once with RESOURCE_EXHAUSTED.
 * An application making more calls at once than that on one SDK client, well within its budget, got refusals it had
 * not earned (31 of 150 in review); the SDK now queues them.
 */
describe('an SDK client with more calls at once than a connection may have in flight', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('queues the excess instead of drawing refusals', async () => {
    h = await startHarness('memory', { limits: { callsPerSecond: 10_000 } });
    const agent = await h.client('busy');
    const { plan_id } = await agent.createPlan({ title: 't', steps: ['a'] });
    const calls = 2 * CALLS_IN_FLIGHT_PER_CONNECTION;
    const answers = await Promise.all(
      Array.from({ length: calls }, () =>
        agent.getPlanStatus({ plan_id }, { retries: 0 }).then(
          () => 'answered',
          (err: { code?: string }) => err.code ?? 'error',
        ),
      ),
    );
    expect(answers.filter((a) => a !== 'answered')).toEqual([]);
  });
});

describe('the SDK call slots', () => {
  it('hand a freed place to the call that waited longest, and give up on one at its deadline', async () => {
    const slots = new CallSlots(1);
    const first = await slots.take(undefined, () => new Error('late'));
    const order: string[] = [];
    const second = slots
      .take(undefined, () => new Error('late'))
      .then((release) => {
        order.push('second');
        return release;
      });
    const late = slots.take(Date.now() + 20, () => new Error('late')).catch((err: Error) => err.message);
    expect(await late).toBe('late');
    first();
    (await second)();
    expect(order).toEqual(['second']);
    const third = await slots.take(Date.now() + 1000, () => new Error('late'));
    third();
  });
});
