import type { AttackPhaseFigures } from '../report/results.ts';
import type { LatencySummary } from './histogram.ts';
import type { ProbeOutcome } from './rate-search.ts';
import { figureOf } from './repetitions.ts';

/**
 * A bystander's figures for one kind of phase (quiet, or loud: under attack, or beside a crowded workspace), from one
 * latency summary per repetition and the outcome of every phase run.
 */
export const phaseFigures = (summaries: LatencySummary[], outcomes: ProbeOutcome[]): AttackPhaseFigures => {
  const firstError = outcomes.find((o) => o.firstError !== undefined)?.firstError;
  return {
    calls: summaries.reduce((n, s) => n + s.count, 0),
    p50: figureOf(summaries.map((s) => s.p50)),
    p90: figureOf(summaries.map((s) => s.p90)),
    p99: figureOf(summaries.map((s) => s.p99)),
    max: figureOf(summaries.map((s) => s.max)),
    errors: outcomes.reduce((n, o) => n + o.sent - o.completed, 0),
    ...(firstError !== undefined ? { firstError } : {}),
  };
};
