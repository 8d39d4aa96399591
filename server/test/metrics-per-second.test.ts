import type { EventEnvelope } from '@planhub/shared';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMetrics, type Metrics } from '../src/ops/metrics.ts';

const WINDOW_S = 60;
const events = (n: number) => Array.from({ length: n }, () => ({ event_type: 'step_completed' })) as EventEnvelope[];
const gauge = async (metrics: Metrics) =>
  (await metrics.registry.getSingleMetric('planhub_events_per_second')?.get())?.values[0]?.value;

describe('planhub_events_per_second', () => {
  let now = Date.UTC(2026, 0, 1);
  afterEach(() => vi.restoreAllMocks());
  const clock = () => vi.spyOn(Date, 'now').mockImplementation(() => now);

  /** The map of per-second counts the metrics keep: the Map a commit sets the current second in. */
  const windowOf = (metrics: Metrics): Map<unknown, unknown> => {
    const second = Math.floor(now / 1000);
    const spy = vi.spyOn(Map.prototype, 'set');
    metrics.committed(events(1));
    const found = spy.mock.contexts[spy.mock.calls.findIndex(([key]) => key === second)] as
      Map<unknown, unknown> | undefined;
    spy.mockRestore();
    if (!found) throw new Error('no map keyed by the second');
    return found;
  };

  it('keeps at most the seconds of its window on a node nobody scrapes', () => {
    clock();
    const metrics = createMetrics();
    const window = windowOf(metrics);
    // Three hours of a node committing every second, /metrics never read: before, one entry per second, for good.
    for (let s = 0; s < 3 * 3600; s++) {
      now += 1000;
      metrics.committed(events(1 + (s % 3)));
      expect(window.size).toBeLessThanOrEqual(WINDOW_S);
    }
    expect(window.size).toBe(WINDOW_S);
  });

  it('reports the events of the last minute over 60, scraped or not in between', async () => {
    clock();
    const metrics = createMetrics();
    const log: { second: number; n: number }[] = [];
    const expected = () => {
      const current = Math.floor(now / 1000);
      const sum = log.filter((c) => c.second > current - WINDOW_S).reduce((total, c) => total + c.n, 0);
      return sum / WINDOW_S;
    };
    let seed = 7;
    const next = (bound: number) => (seed = (seed * 48271) % 2147483647) % bound;
    for (let i = 0; i < 2000; i++) {
      // Steps from a few milliseconds to two minutes: several commits in one second, gaps past the window.
      now += next(5) === 0 ? 1000 * next(120) : next(700);
      const n = next(4);
      metrics.committed(events(n));
      log.push({ second: Math.floor(now / 1000), n });
      if (next(10) === 0) expect(await gauge(metrics)).toBeCloseTo(expected(), 10);
    }
    now += 30_000;
    expect(await gauge(metrics)).toBeCloseTo(expected(), 10);
    now += 31_000;
    expect(await gauge(metrics)).toBe(0);
  });
});
