import { PlanHubError, parseTtl } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../src/config.ts';
import { createCallLimiter } from '../src/limits/call-limiter.ts';
import { createMemoryConnectionCounter } from '../src/limits/connection-counter.ts';
import { checkShape, measureShape } from '../src/limits/json-shape.ts';

const nest = (depth: number, leaf: unknown = 1): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { k: v };
  return v;
};

describe('measureShape / checkShape', () => {
  it('measures depth and approximate JSON size, stopping early', () => {
    expect(measureShape({ a: [1, 'xy'] }, { maxDepth: 2 })).toBeUndefined();
    expect(measureShape({ a: [1, 'xy'] }, { maxDepth: 1 })).toMatchObject({ exceeded: 'depth' });
    expect(measureShape({ s: 'x'.repeat(100) }, { maxDepth: 5, maxBytes: 50 })).toMatchObject({ exceeded: 'bytes' });
    expect(measureShape('é'.repeat(10), { maxDepth: 1, maxBytes: 21 })).toMatchObject({ exceeded: 'bytes' });
    expect(measureShape(Buffer.alloc(100), { maxDepth: 1, maxBytes: 99 })).toMatchObject({ exceeded: 'bytes' });
  });

  it('walks a 200,000-level nesting without overflowing the stack', () => {
    expect(measureShape(nest(200_000), { maxDepth: 32 })).toMatchObject({ exceeded: 'depth', depth: 33 });
  });

  it('throws RESOURCE_EXHAUSTED naming the field and the limit', () => {
    expect(() => checkShape('output', nest(10), { maxDepth: 4 })).toThrow(/output is nested more than 4 levels/);
    try {
      checkShape('metadata', { s: 'x'.repeat(100) }, { maxDepth: 4, maxBytes: 10 });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(PlanHubError);
      expect(err).toMatchObject({
        code: 'RESOURCE_EXHAUSTED',
        details: { field: 'metadata', limit: 10, kind: 'bytes' },
      });
    }
  });
});

describe('parseTtl', () => {
  it('reads seconds, minutes, hours and days, and refuses the rest', () => {
    expect([parseTtl('90s'), parseTtl('15m'), parseTtl('1h'), parseTtl('7d'), parseTtl('42'), parseTtl(5)]).toEqual([
      90, 900, 3600, 604_800, 42, 5,
    ]);
    for (const bad of ['', '1w', '-1h', '1.5h', '0', 'h']) expect(() => parseTtl(bad), bad).toThrow(/TTL|zero/);
    expect(() => parseTtl(0)).toThrow();
  });
});

describe('limits from the environment', () => {
  it('maps PLANHUB_LIMIT_* onto the limits, refusing unknown names and non-positive values', () => {
    const config = configFromEnv({ PLANHUB_LIMIT_CALLS_PER_SECOND: '5', PLANHUB_LIMIT_STEPS_PER_PLAN: '10' });
    expect(config.limits).toMatchObject({ callsPerSecond: 5, stepsPerPlan: 10, plansPerAgent: 50 });
    expect(() => configFromEnv({ PLANHUB_LIMIT_CALLS_PER_MINUTE: '5' })).toThrow(
      /Unknown limit PLANHUB_LIMIT_CALLS_PER_MINUTE; the limits are .*PLANHUB_LIMIT_CALLS_PER_SECOND/,
    );
    expect(() => configFromEnv({ PLANHUB_LIMIT_OUTPUT_BYTES: '0' })).toThrow();
  });
});

describe('call limiter (memory)', () => {
  it('admits the budget per window, then refuses with a retry hint, per agent', async () => {
    const limiter = createCallLimiter({ limits: { callsPerSecond: 2, rateWindowSeconds: 10 } });
    const a = { workspace: 'w', agent_id: 'a', role: 'agent' as const };
    for (let i = 0; i < 20; i++) await limiter.consume(a);
    const refusal = await limiter.consume(a).catch((err: unknown) => err);
    expect(refusal).toMatchObject({ code: 'RESOURCE_EXHAUSTED', details: { limit: 20, window_ms: 10_000 } });
    const retry = (refusal as PlanHubError & { details: { retry_after_ms: number } }).details.retry_after_ms;
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(10_000);
    // Another agent, and the same name in another workspace, have budgets of their own.
    await limiter.consume({ ...a, agent_id: 'b' });
    await limiter.consume({ ...a, workspace: 'v' });
  });
});

describe('connection counter (memory)', () => {
  it('admits up to the limit and frees a slot on release', async () => {
    const counter = createMemoryConnectionCounter();
    expect(await counter.acquire('k', 's1', 2)).toEqual({ admitted: true, live: 1 });
    expect(await counter.acquire('k', 's2', 2)).toEqual({ admitted: true, live: 2 });
    expect(await counter.acquire('k', 's3', 2)).toEqual({ admitted: false, live: 2 });
    await counter.release('k', 's1');
    expect(await counter.acquire('k', 's3', 2)).toEqual({ admitted: true, live: 2 });
  });
});
