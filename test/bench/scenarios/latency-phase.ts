import type { SessionFactory, Timing } from '../load/sessions.ts';
import { cpuMeter } from '../infra/cpu.ts';
import { probeOf } from '../load/sessions.ts';
import type { LatencyFigures, LatencyId } from '../report/results.ts';
import { latencyFiguresOf } from '../stats/latency-figures.ts';
import type { ProbeOutcome } from '../stats/rate-search.ts';

export interface LatencyRun {
  id: LatencyId;
  rate: number;
  factory: SessionFactory;
  /** The processes serving the run, for its CPU time per request. */
  pids?: readonly number[];
}

/** Each run at its fixed rate once per repetition, interleaved across runs like the throughput phase. */
export const runLatencyPhase = async (
  runs: readonly LatencyRun[],
  repetitions: number,
  timing: Timing,
  progress: (line: string) => void,
  beforeEach: () => Promise<void>,
): Promise<Map<LatencyId, LatencyFigures>> => {
  const outcomes = new Map<LatencyId, ProbeOutcome[]>(runs.map((r) => [r.id, []]));
  for (let rep = 1; rep <= repetitions; rep++) {
    for (const run of runs) {
      await beforeEach();
      const cpu = run.pids ? cpuMeter(run.pids) : undefined;
      const outcome = await probeOf(
        run.factory,
        timing,
        cpu,
      )(run.rate).catch((err: unknown): ProbeOutcome => ({
        rate: run.rate,
        sent: 1,
        completed: 0,
        errors: 1,
        firstError: `setup failed: ${err instanceof Error ? err.message : String(err)}`,
        latency: { count: 0, p50: NaN, p90: NaN, p99: NaN, p999: NaN, max: NaN },
      }));
      outcomes.get(run.id)?.push(outcome);
      const failed = outcome.sent - outcome.completed;
      progress(
        `rep ${rep} ${run.id} @${run.rate}/s: p50 ${outcome.latency.p50} p99 ${outcome.latency.p99} max ${outcome.latency.max} ms` +
          (outcome.serverCpuUs !== undefined ? `, ${outcome.serverCpuUs} µs CPU/req` : '') +
          (failed > 0 ? ` — ${failed} failed (${outcome.firstError ?? 'no answer'})` : ''),
      );
    }
  }
  return new Map(runs.map((r) => [r.id, latencyFiguresOf(r.rate, outcomes.get(r.id) ?? [])]));
};
