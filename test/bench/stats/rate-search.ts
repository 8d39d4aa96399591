import type { LatencySummary } from './histogram.ts';

/** One fixed-rate run: how many requests were due, how many were answered, and their latency. */
export interface ProbeOutcome {
  rate: number;
  sent: number;
  completed: number;
  errors: number;
  firstError?: string;
  /** The run stopped early because a request waited far past the target. */
  aborted?: boolean;
  /** CPU time the servers (and Redis) spent per request during the run, in µs, where it could be read. */
  serverCpuUs?: number;
  latency: LatencySummary;
}

export type Probe = (rate: number) => Promise<ProbeOutcome>;

/** A rate is sustained when every request was answered without error and p99 (from intended send time) is in target. */
export const sustains = (outcome: ProbeOutcome, p99TargetMs: number): boolean =>
  outcome.errors === 0 && outcome.completed === outcome.sent && outcome.latency.p99 <= p99TargetMs;

export interface RateSearchOptions {
  p99TargetMs: number;
  /** First rate tried: a previous repetition's answer, or a guess. */
  start: number;
  /** Factor by which the bracketing phase moves (2 from a guess; ~1.25 from a previous answer). */
  growth: number;
  /** Stop when the highest passing and lowest failing rates are within this factor. */
  resolution: number;
  maxProbes: number;
  /** Extra probes allowed while no rate has passed yet (a noisy first probe should not end the search at 0). */
  extraProbesUntilPass?: number;
  /**
   * Extra probes allowed while every rate has passed (a start far below the capacity should not end the search at
   * the highest rate it had time to try); a bracket found this way still gets probes to narrow it.
   */
  extraProbesUntilFail?: number;
  minRate: number;
  maxRate: number;
}

export interface RateSearchResult {
  /** The highest rate that sustained the target (0 if even minRate failed). */
  rate: number;
  /** Some rate failed: `rate` is the capacity within the resolution, not only a rate the search had time to try. */
  bracketed: boolean;
  probes: ProbeOutcome[];
  /** The outcome at `rate`, for its latency profile. */
  best?: ProbeOutcome;
}

/**
 * Throughput as docs/invariants.md, performance targets defines it: the highest fixed arrival rate that still meets the p99 target. It brackets
 * the answer geometrically from `start`, then bisects (geometric mean) until the bracket is within `resolution`.
 * A closed loop would report the rate the server happens to drain, hiding the queueing; this never does.
 */
export const searchRate = async (probe: Probe, options: RateSearchOptions): Promise<RateSearchResult> => {
  const probes: ProbeOutcome[] = [];
  let best: ProbeOutcome | undefined;
  let lo = 0;
  let hi = Number.POSITIVE_INFINITY;
  const run = async (rate: number): Promise<boolean> => {
    const outcome = await probe(Math.round(rate));
    probes.push(outcome);
    const ok = sustains(outcome, options.p99TargetMs);
    if (ok && outcome.rate > lo) {
      lo = outcome.rate;
      best = outcome;
    }
    if (!ok && outcome.rate < hi) hi = outcome.rate;
    return ok;
  };

  let rate = Math.min(Math.max(options.start, options.minRate), options.maxRate);
  let cap = options.maxProbes;
  if (await run(rate)) {
    const growCap = options.maxProbes + (options.extraProbesUntilFail ?? 0);
    while (hi === Number.POSITIVE_INFINITY && probes.length < growCap && rate < options.maxRate) {
      rate = Math.min(rate * options.growth, options.maxRate);
      await run(rate);
    }
    // A bracket found with extra probes is narrowed as far as a bracket found in budget would have been at least once.
    if (probes.length >= options.maxProbes && Number.isFinite(hi)) cap = probes.length + 2;
  } else {
    const cap = options.maxProbes + (options.extraProbesUntilPass ?? 0);
    while (lo === 0 && probes.length < cap && rate > options.minRate) {
      rate = Math.max(rate / options.growth, options.minRate);
      await run(rate);
    }
  }
  while (
    lo > 0 &&
    Number.isFinite(hi) &&
    hi / lo > options.resolution &&
    probes.length < cap &&
    Math.round(Math.sqrt(lo * hi)) !== lo
  ) {
    await run(Math.sqrt(lo * hi));
  }
  return { rate: lo, bracketed: Number.isFinite(hi), probes, ...(best ? { best } : {}) };
};

/** The same refusal for another agent or after another wait is the same note. */
export const errorKind = (message: string) =>
  message
    .replace(/\b(agent )\S+/g, '$1…')
    .replace(/\d+(\.\d+)?/g, 'N')
    .slice(0, 200);
