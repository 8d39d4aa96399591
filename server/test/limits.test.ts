import { PlanHubError, parseTtl } from '@planhub/shared';
import fc from 'fast-check';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../src/config.ts';
import { createCallLimiter, MAX_TAKEN_AHEAD } from '../src/limits/call-limiter.ts';
import type { LimitBackend } from '../src/store/limits/limit-backend.ts';
import { createMemoryLimits } from '../src/store/limits/memory-limits.ts';
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

/** Nodes sharing one count, as nodes share one Redis key: every count the limiters send is counted here. */
const sharedCount = () => {
  let shared: RateLimiterMemory | undefined;
  const sent: number[] = [];
  const backend: LimitBackend = {
    ...createMemoryLimits(),
    rateLimiter: (options) => {
      const limiter = (shared ??= new RateLimiterMemory(options));
      return Object.assign(Object.create(limiter) as RateLimiterMemory, {
        consume: (key: string, taken: number) => (sent.push(taken), limiter.consume(key, taken)),
      });
    },
  };
  return { backend, sent };
};

describe('call limiter: points taken ahead', () => {
  const agent = { workspace: 'w', agent_id: 'a', role: 'agent' as const };
  /** A 64-s window, so none ends during a test (and points / 64 × 64 is exactly points). */
  const limits = (points: number) => ({ callsPerSecond: points / 64, rateWindowSeconds: 64 });

  it('costs an agent calling steadily one count every few calls, and nothing past the budget', async () => {
    const { backend, sent } = sharedCount();
    const limiter = createCallLimiter({ limits: limits(200), backend });
    const call = () =>
      limiter.admit(agent).settled.then(
        () => true,
        () => false,
      );
    let admitted = 0;
    for (let i = 0; i < 200; i++) if (await call()) admitted += 1;
    expect(admitted).toBe(200);
    // The first counts are exact; then each takes up to an eighth of what was left: far fewer than the calls.
    expect(sent.slice(0, 4)).toEqual([1, 1, 1, 1]);
    expect(Math.max(...sent)).toBeLessThanOrEqual(1 + MAX_TAKEN_AHEAD);
    expect(sent.length).toBeLessThan(200 / 4);
    // Past the budget each call is counted, and refused.
    expect(await call()).toBe(false);
    expect(await call()).toBe(false);
  });

  it('sends at most a budget of counts at once for one agent, however many of its calls arrive together', async () => {
    const { backend, sent } = sharedCount();
    const limiter = createCallLimiter({ limits: limits(100), backend });
    // A flood: many sockets of one agent, each with its calls in flight, at the start of a window.
    const outcomes = await Promise.all(
      Array.from({ length: 2000 }, () =>
        limiter.admit(agent).settled.then(
          () => true,
          () => false,
        ),
      ),
    );
    expect(outcomes.filter(Boolean)).toHaveLength(100);
    // Every call was counted before (2,000 counts); now the first 100, and those woken before a refusal was known.
    expect(sent.length).toBeLessThanOrEqual(2 * 100 + 1);
  });

  it('admits exactly the budget across nodes however their calls interleave, once each is refused', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 80 }),
        fc.array(fc.array(fc.nat(3), { minLength: 1, maxLength: 20 }), { maxLength: 30 }),
        async (nodes, points, batches) => {
          const { backend } = sharedCount();
          const limiters = Array.from({ length: nodes }, () => createCallLimiter({ limits: limits(points), backend }));
          let admitted = 0;
          const call = async (node: number) => {
            const ok = await (limiters[node % nodes] as ReturnType<typeof createCallLimiter>).admit(agent).settled.then(
              () => true,
              () => false,
            );
            if (ok) admitted += 1;
            return ok;
          };
          for (const batch of batches) {
            await Promise.all(batch.map(call));
            expect(admitted).toBeLessThanOrEqual(points);
          }
          // Every node calls until refused: then no node holds points, and all of them were admitted.
          for (let node = 0; node < nodes; node++) while (await call(node));
          expect(admitted).toBe(points);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('lets a node keep no points for an agent pushed past its budget by charged work', async () => {
    const { backend } = sharedCount();
    const limiter = createCallLimiter({ limits: limits(60), backend });
    for (let i = 0; i < 5; i++) await limiter.consume(agent);
    await limiter.consume(agent);
    // Work charged after a call: 50 units of what is left, past the budget; the next call pays for it.
    await expect(limiter.consume(agent, 60)).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
    await expect(limiter.admit(agent).settled).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
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
