import type { BenchConfig } from '../config.ts';
import type { SessionFactory, Timing } from '../load/sessions.ts';
import { capacityOf, probeOf } from '../load/sessions.ts';
import type { ThroughputId } from '../report/results.ts';
import type { ProbeOutcome } from '../stats/rate-search.ts';
import { errorKind, searchRate } from '../stats/rate-search.ts';

export interface ThroughputScenario {
  id: ThroughputId;
  factory: SessionFactory;
}

export interface ThroughputSamples {
  /** One rate per repetition (req/s). */
  rates: number[];
  /** Every probe of every repetition: [rate, p99 ms, sustained], for the JSON. */
  probes: Array<[number, number, boolean]>;
  /** Errors seen by failing probes (e.g. a limit refusing calls), for the notes. */
  errors: string[];
  /** Repetitions whose search never saw a rate fail: their figure is a lower bound, for the notes. */
  unbracketed: number;
}

/** Probes a search may add while every rate it tried has passed. */
const EXTRA_PROBES_UNTIL_FAIL = 6;

/**
 * The repetitions are interleaved (rep 1 of every scenario, then rep 2, …) so slow drift of a shared machine hits
 * the floors and PlanHub alike. The first search of a scenario starts from a closed-loop estimate; later ones
 * start from the previous answer with a narrower step.
 */
export const runThroughputPhase = async (
  scenarios: readonly ThroughputScenario[],
  config: BenchConfig,
  timing: Timing,
  progress: (line: string) => void,
  beforeEach: () => Promise<void>,
): Promise<Map<ThroughputId, ThroughputSamples>> => {
  const out = new Map<ThroughputId, ThroughputSamples>(
    scenarios.map((s) => [s.id, { rates: [], probes: [], errors: [], unbracketed: 0 }]),
  );
  const previous = new Map<ThroughputId, number>();
  for (let rep = 1; rep <= config.repetitions; rep++) {
    for (const scenario of scenarios) {
      await beforeEach();
      const samples = out.get(scenario.id) as ThroughputSamples;
      const prev = previous.get(scenario.id);
      const start = prev ?? 0.8 * (await capacityOf(scenario.factory, Math.min(800, timing.probeMs), timing.settleMs));
      const searchTiming = { ...timing, abortAfterMs: Math.max(500, 20 * config.p99TargetMs) };
      const result = await searchRate(probeOf(scenario.factory, searchTiming), {
        p99TargetMs: config.p99TargetMs,
        start,
        growth: prev ? 1.15 : 1.3,
        resolution: 1.08,
        maxProbes: prev ? config.maxProbes : config.maxProbes + 2,
        extraProbesUntilPass: 3,
        extraProbesUntilFail: EXTRA_PROBES_UNTIL_FAIL,
        minRate: 5,
        maxRate: 200_000,
      });
      samples.rates.push(result.rate);
      if (!result.bracketed) samples.unbracketed += 1;
      for (const p of result.probes) {
        samples.probes.push([p.rate, p.latency.p99, p.errors === 0 && p.completed === p.sent]);
        const kind = p.firstError && errorKind(p.firstError);
        if (kind && !samples.errors.includes(kind)) samples.errors.push(kind);
      }
      if (result.rate > 0) previous.set(scenario.id, result.rate);
      progress(`rep ${rep} ${scenario.id}: ${result.rate}/s (${describe(result.probes)})`);
    }
  }
  return out;
};

const describe = (probes: readonly ProbeOutcome[]) =>
  probes.map((p) => `${p.rate}:${p.latency.p99}ms${p.sent - p.completed > 0 ? '!' : ''}`).join(' ');
