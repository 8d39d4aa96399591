import type { CallAck } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { captureLog } from './support/capture-log.ts';
import type { RawClient } from './support/raw-client.ts';
import { serverFixture } from './support/server-fixture.ts';

/** 30 calls per 30-second window: a flood of local calls ends well inside one window, so the count is exact. */
const WINDOW_S = 30;
const LIMITS = { callsPerSecond: 1, rateWindowSeconds: WINDOW_S } as const;
const BUDGET = LIMITS.callsPerSecond * WINDOW_S;

describe('calls per second per agent', () => {
  const { redis, node, join } = serverFixture({ limits: LIMITS });
  const connect = (url: string, agent: string) => join(url, 'ws', agent);

  /** Sends `total` calls spread over `via`, all at once; counts answers by outcome. */
  const flood = async (via: RawClient[], total: number) => {
    const started = Date.now();
    const acks: CallAck[] = await Promise.all(
      Array.from({ length: total }, (_, i) => (via[i % via.length] as RawClient).call('getPlanStatus', {})),
    );
    const elapsedMs = Date.now() - started;
    const refused = acks.filter((a) => !a.ok && a.error.code === 'RESOURCE_EXHAUSTED');
    // NOT_FOUND (no plan yet) means the call was admitted and ran.
    const admitted = acks.filter((a) => a.ok || a.error.code !== 'RESOURCE_EXHAUSTED');
    return { admitted: admitted.length, refused, elapsedMs };
  };

  /** A fixed window admits BUDGET per window touched: exact when the flood fits one window, bounded otherwise. */
  const expectThrottled = (result: Awaited<ReturnType<typeof flood>>, total: number) => {
    const windows = Math.floor(result.elapsedMs / (WINDOW_S * 1000)) + 1;
    expect(result.admitted).toBeGreaterThanOrEqual(BUDGET);
    expect(result.admitted).toBeLessThanOrEqual(BUDGET * windows);
    expect(result.admitted + result.refused.length).toBe(total);
    for (const ack of result.refused) {
      if (ack.ok) continue;
      expect(ack.error.message).toMatch(/Too many calls: agent flood may make 30 calls per 30 s\. Retry in \d+ ms/);
      const details = ack.error.details as { retry_after_ms: number; limit: number; window_ms: number };
      expect(details.limit).toBe(BUDGET);
      expect(details.window_ms).toBe(WINDOW_S * 1000);
      expect(details.retry_after_ms).toBeGreaterThan(0);
      expect(details.retry_after_ms).toBeLessThanOrEqual(WINDOW_S * 1000);
    }
  };

  it('throttles one agent flooding two nodes at the configured rate in total, while another agent is served', async () => {
    const [a, b] = [await node(redis()), await node(redis())];
    const flooders = [await connect(a, 'flood'), await connect(b, 'flood')];
    const calm = [await connect(a, 'calm'), await connect(b, 'calm')];
    const total = BUDGET * 4;
    const [result, calmAnswers] = await Promise.all([
      flood(flooders, total),
      Promise.all(Array.from({ length: 10 }, (_, i) => (calm[i % 2] as RawClient).call('listTools', {}))),
    ]);
    expectThrottled(result, total);
    expect(calmAnswers.every((ack) => ack.ok)).toBe(true);
    // Still refused on either node while the window lasts: the budget is one count shared by both. (On a machine so
    // slow that the flood outlasted the window, a new window may have begun; then there is nothing to check here.)
    if (result.elapsedMs < WINDOW_S * 1000 - 5000)
      for (const client of flooders) {
        const ack = await client.call('listTools', {});
        expect(ack.ok ? 'ok' : ack.error.code).toBe('RESOURCE_EXHAUSTED');
      }
  });

  it('never applies a step change refused by its count, though it began reading before the count answered', async () => {
    const [a, b] = [await node({ ...redis(), approvalPolicy: 'auto' }), await node(redis())];
    const [viaA, viaB] = [await connect(a, 'racer'), await connect(b, 'racer')];
    const created = await viaA.call('createPlan', { title: 'P', steps: ['one', 'two'] });
    expect(created.ok).toBe(true);
    expect((await viaA.call('startPlan', {})).ok).toBe(true);
    // Node A last saw the agent at 2 of 30 calls: well inside the budget, so its next step change reads at once.
    // Meanwhile the agent spends the rest of its budget through node B.
    const rest = await Promise.all(Array.from({ length: BUDGET - 2 }, () => viaB.call('getPlanStatus', {})));
    expect(rest.filter((ack) => !ack.ok && ack.error.code === 'RESOURCE_EXHAUSTED')).toHaveLength(0);
    const change = await viaA.call('setStepStatus', { step_id: 'step_1', status: 'completed', result: 'done' });
    expect(change.ok ? 'ok' : change.error.code).toBe('RESOURCE_EXHAUSTED');
    // Read by another agent (its own budget): the refused change left nothing behind.
    const reader = await connect(a, 'reader');
    const status = await reader.call('getPlanStatus', { agent_id: 'racer' });
    if (!status.ok) throw new Error(status.error.message);
    const steps = (status.result as { steps: Array<{ id: string; status: string }> }).steps;
    expect(steps.find((s) => s.id === 'step_1')?.status).toBe('pending');
  });

  it('throttles on the memory store too (one node, one count), warning once per window in the log', async () => {
    const { log, lines } = captureLog();
    const url = await node({}, { log });
    const flooders = [await connect(url, 'flood'), await connect(url, 'flood')];
    const calm = await connect(url, 'calm');
    const total = BUDGET * 3;
    const result = await flood(flooders, total);
    expectThrottled(result, total);
    expect((await calm.call('listTools', {})).ok).toBe(true);
    // A flood of refusals is one warning, not one line per refused call at info.
    expect(lines.filter((l) => l.msg.startsWith('call budget exceeded'))).toHaveLength(1);
    expect(lines.filter((l) => l.code === 'RESOURCE_EXHAUSTED' && l.level >= 30)).toHaveLength(0);
  });
});
