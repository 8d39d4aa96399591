import type { LatencyFigures } from '../report/results.ts';
import type { ProbeOutcome } from './rate-search.ts';
import { figureOf } from './repetitions.ts';

/** One fixed-rate run per repetition → each percentile's median and range; failures are summed. */
export const latencyFiguresOf = (rate: number, runs: readonly ProbeOutcome[]): LatencyFigures => {
  const firstError = runs.find((r) => r.firstError !== undefined)?.firstError;
  const cpu = runs.flatMap((r) => (r.serverCpuUs === undefined ? [] : [r.serverCpuUs]));
  return {
    rate,
    p50: figureOf(runs.map((r) => r.latency.p50)),
    p90: figureOf(runs.map((r) => r.latency.p90)),
    p99: figureOf(runs.map((r) => r.latency.p99)),
    p999: figureOf(runs.map((r) => r.latency.p999)),
    max: figureOf(runs.map((r) => r.latency.max)),
    ...(cpu.length > 0 ? { cpuUs: figureOf(cpu) } : {}),
    errors: runs.reduce((sum, r) => sum + (r.sent - r.completed), 0),
    ...(firstError !== undefined ? { firstError } : {}),
  };
};
