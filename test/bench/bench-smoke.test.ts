import { describe, expect, it } from 'vitest';
import { ratioRows, verdictOf } from './report/ratio-table.ts';
import { formatFigure, latencyTable, ratioTable, throughputTable } from './report/render.ts';
import type { BenchResults, LatencyFigures } from './report/results.ts';
import { newHistogram, recordMs, summarize } from './stats/histogram.ts';
import { latencyFiguresOf } from './stats/latency-figures.ts';
import type { ProbeOutcome } from './stats/rate-search.ts';
import { errorKind, searchRate, sustains } from './stats/rate-search.ts';
import { figureOf, median, ratioOf } from './stats/repetitions.ts';

/** A synthetic server: fine up to `capacity` req/s, queueing without bound above it. */
const modelServer = (capacity: number) => {
  const tried: number[] = [];
  const probe = (rate: number): Promise<ProbeOutcome> => {
    tried.push(rate);
    const p99 = rate <= capacity ? 3 : 400;
    return Promise.resolve({
      rate,
      sent: 100,
      completed: 100,
      errors: 0,
      latency: { count: 100, p50: 1, p90: 2, p99, p999: p99, max: p99 },
    });
  };
  return { probe, tried };
};

const search = (
  capacity: number,
  start: number,
  maxProbes = 12,
  extraProbesUntilPass = 0,
  extraProbesUntilFail = 0,
) => {
  const server = modelServer(capacity);
  return searchRate(server.probe, {
    p99TargetMs: 25,
    start,
    growth: 2,
    resolution: 1.08,
    maxProbes,
    extraProbesUntilPass,
    extraProbesUntilFail,
    minRate: 5,
    maxRate: 1_000_000,
  }).then((result) => ({ ...result, tried: server.tried }));
};

const figure = (...samples: number[]) => figureOf(samples);
const latency = (rate: number, p50: number[], p99: number[]): LatencyFigures => ({
  rate,
  p50: figureOf(p50),
  p90: figureOf(p99),
  p99: figureOf(p99),
  p999: figureOf(p99),
  max: figureOf(p99),
  errors: 0,
});

describe('bench rate search', () => {
  it('finds the highest sustained rate within the resolution, starting below the capacity', async () => {
    const result = await search(1000, 100);
    expect(result.rate).toBeLessThanOrEqual(1000);
    expect(result.rate).toBeGreaterThanOrEqual(1000 / 1.08);
    expect(result.best?.rate).toBe(result.rate);
    expect(result.probes.length).toBeLessThanOrEqual(12);
  });

  it('finds it starting above the capacity too', async () => {
    const result = await search(1000, 50_000);
    expect(result.rate).toBeLessThanOrEqual(1000);
    expect(result.rate).toBeGreaterThanOrEqual(1000 / 1.08);
  });

  it('never runs more probes than allowed and reports 0 when nothing is sustained', async () => {
    const limited = await search(1000, 100, 3);
    expect(limited.tried).toHaveLength(3);
    const none = await search(1, 100);
    expect(none.rate).toBe(0);
    expect(none.best).toBeUndefined();
  });

  it('keeps going down past the probe budget until some rate passes, when allowed', async () => {
    const stuck = await search(100, 10_000, 3);
    expect(stuck.rate).toBe(0);
    const found = await search(100, 10_000, 3, 6);
    expect(found.rate).toBeGreaterThan(0);
    expect(found.rate).toBeLessThanOrEqual(100);
  });

  it('keeps going up past the probe budget until some rate fails, when allowed, and says whether one did', async () => {
    // From 100 with growth 2 and 3 probes the search reaches 400 and stops there: a ceiling, not the capacity.
    const ceiling = await search(5000, 100, 3);
    expect(ceiling).toMatchObject({ rate: 400, bracketed: false });
    const found = await search(5000, 100, 3, 0, 8);
    expect(found.bracketed).toBe(true);
    expect(found.rate).toBeLessThanOrEqual(5000);
    // Bracketed between 3,200 and 6,400 with extra probes, then narrowed by two more.
    expect(found.rate).toBeGreaterThan(3200);
    expect(found.tried).toHaveLength(9);
  });

  it('counts a run as sustained only with no errors, every request answered and p99 in target', () => {
    const ok: ProbeOutcome = {
      rate: 10,
      sent: 10,
      completed: 10,
      errors: 0,
      latency: { count: 10, p50: 1, p90: 1, p99: 20, p999: 20, max: 20 },
    };
    expect(sustains(ok, 25)).toBe(true);
    expect(sustains({ ...ok, errors: 1, completed: 9 }, 25)).toBe(false);
    expect(sustains({ ...ok, completed: 9 }, 25)).toBe(false);
    expect(sustains(ok, 10)).toBe(false);
  });
});

describe('bench histogram and repetitions', () => {
  it('summarizes latencies in milliseconds at p50, p90, p99, p99.9 and max', () => {
    const h = newHistogram();
    for (let ms = 1; ms <= 1000; ms++) recordMs(h, ms);
    const s = summarize(h);
    expect(s.count).toBe(1000);
    // HdrHistogram keeps 3 significant digits: values are exact to 0.1%.
    expect(s.p50).toBeCloseTo(500, -1);
    expect(s.p90).toBeCloseTo(900, -1);
    expect(s.p99).toBeCloseTo(990, -1);
    expect(s.p999).toBeCloseTo(999, -1);
    expect(s.max).toBeCloseTo(1000, -1);
  });

  it('reports medians with ranges, and ratios per repetition', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(figure(5, 1, 3)).toMatchObject({ median: 3, min: 1, max: 5 });
    const r = ratioOf(figure(100, 90, 80), figure(200, 100, 100));
    expect(r.samples).toEqual([0.5, 0.9, 0.8]);
    expect(r.median).toBe(0.8);
    expect(formatFigure(figure(1234, 1180, 1290))).toBe('1234 (1180–1290)');
    expect(formatFigure(figure(1.5))).toBe('1.50');
  });

  it('notes one kind of refusal once, whatever agent or wait it names', () => {
    const a = errorKind(
      'setStepStatus: RESOURCE_EXHAUSTED Too many calls: agent r35-a0x may make 200 calls. Retry in 86 ms',
    );
    const b = errorKind(
      'setStepStatus: RESOURCE_EXHAUSTED Too many calls: agent r9-a0y may make 200 calls. Retry in 3 ms',
    );
    expect(a).toBe(b);
    expect(errorKind('createPlan: UNAVAILABLE busy')).not.toBe(a);
  });

  it('sums unanswered and failed requests of fixed-rate runs', () => {
    const run = (p50: number, completed: number): ProbeOutcome => ({
      rate: 100,
      sent: 100,
      completed,
      errors: 100 - completed,
      serverCpuUs: p50 * 100,
      latency: { count: completed, p50, p90: p50, p99: p50, p999: p50, max: p50 },
    });
    const l = latencyFiguresOf(100, [run(1, 100), run(3, 98), run(2, 99)]);
    expect(l.p50).toMatchObject({ median: 2, min: 1, max: 3 });
    expect(l.errors).toBe(3);
    expect(l.cpuUs).toMatchObject({ median: 200, min: 100, max: 300 });
  });
});

describe('bench ratio table', () => {
  const results: BenchResults = {
    throughput: {
      'floor.redis': figure(1000, 1100, 900),
      'planhub.redis.50': figure(900, 800, 850),
      'planhub.redis.50.stored': figure(700, 700, 700),
    },
    latency: {
      'floor.redis.50': latency(400, [1, 1, 1], [2, 2, 2]),
      'planhub.redis.50': latency(400, [2, 2, 2], [3, 3, 3]),
      'floor.broadcast': latency(100, [1, 1, 1], [2, 2, 2]),
      'planhub.event': latency(100, [2, 2, 2], [4, 4, 4]),
      'planhub.unblock': latency(100, [3, 3, 3], [5, 5, 5]),
    },
    notes: [],
  };

  it('compares each figure with its floor and judges it against the performance targets', () => {
    const rows = ratioRows(results);
    const byLabel = (start: string) => rows.find((r) => r.label.startsWith(start));
    expect(byLabel('setStepStatus throughput, 50 agents, Redis')).toMatchObject({ verdict: 'pass' });
    expect(byLabel('setStepStatus throughput, 50 agents, Redis')?.ratio?.median).toBeCloseTo(0.9);
    expect(byLabel('setStepStatus p99, 50 agents, Redis')).toMatchObject({ verdict: 'pass' });
    expect(byLabel('cross-node event delivery p99')).toMatchObject({ verdict: 'miss' });
    expect(byLabel('auto-unblock across nodes p50 ÷ one')).toMatchObject({ verdict: 'pass' });
    expect(byLabel('setStepStatus throughput, 100k')).toMatchObject({ verdict: 'miss' });
    expect(byLabel('setStepStatus throughput, 1 agent')).toMatchObject({ verdict: 'not measured' });
    expect(byLabel('auto-unblock across nodes p50 ÷ broadcast')).toMatchObject({ verdict: 'info' });
    expect(verdictOf(figure(0.8), { op: '>=', value: 0.8 })).toBe('pass');
    expect(verdictOf(figure(1.51), { op: '<=', value: 1.5 })).toBe('miss');
  });

  it('pairs the 100k-plans run with the 10-plans run of the same repetition, as information beside the target', () => {
    const withCpu = (l: LatencyFigures, cpu: number[]): LatencyFigures => ({ ...l, cpuUs: figureOf(cpu) });
    const paired: BenchResults = {
      ...results,
      latency: {
        ...results.latency,
        // The machine slows in the second repetition: both runs of it cost more, their ratio does not.
        'planhub.redis.50': withCpu(latency(400, [2, 2], [3, 6]), [500, 1000]),
        'planhub.redis.50.stored': withCpu(latency(400, [2, 2], [3.3, 6.6]), [525, 1050]),
      },
    };
    const rows = ratioRows(paired);
    const cpu = rows.find((r) =>
      r.label.startsWith('CPU per request (servers + Redis), setStepStatus 50 agents, 100k'),
    );
    expect(cpu?.ratio?.samples.map((x) => Number(x.toFixed(3)))).toEqual([1.05, 1.05]);
    expect(cpu).toMatchObject({ verdict: 'info' });
    const p99 = rows.find((r) => r.label.startsWith('setStepStatus p99, 50 agents, 100k'));
    expect(p99?.ratio?.median).toBeCloseTo(1.1);
    // Without the stored run (an older results file) the rows say so instead of inventing a figure.
    expect(ratioRows(results).find((r) => r.label.startsWith('setStepStatus p99, 50 agents, 100k'))).toMatchObject({
      verdict: 'not measured',
    });
  });

  it('renders the tables as text and as markdown', () => {
    const text = ratioTable(ratioRows(results), 'text');
    expect(text).toContain('≥ 0.8×');
    expect(text).toMatch(/cross-node event delivery p99.*miss/);
    const md = ratioTable(ratioRows(results), 'markdown');
    expect(md.split('\n')[1]).toMatch(/^\| --- \|/);
    expect(throughputTable(results, 'markdown')).toContain('| 1000 (900–1100) |');
    expect(latencyTable(results, 'text')).toContain('auto-unblock');
  });
});
