import { z } from 'zod';

const num = () => z.coerce.number().positive().optional();

const EnvSchema = z.object({
  BENCH_QUICK: z.enum(['0', '1', '']).optional(),
  BENCH_REPS: num(),
  BENCH_PROBE_MS: num(),
  BENCH_WARMUP_MS: num(),
  BENCH_P99_TARGET_MS: num(),
  BENCH_PLANS: num(),
  BENCH_STEPS: num(),
  BENCH_CROSS_RATE: num(),
  BENCH_MAX_PROBES: num(),
  BENCH_OUT: z.string().optional(),
  BENCH_PUBLISH: z.enum(['0', '1', '']).optional(),
});

export interface BenchConfig {
  quick: boolean;
  /** Repetitions of every measurement (DESIGN.md §7: at least 5). */
  repetitions: number;
  /** Measured part of one fixed-rate run. */
  probeMs: number;
  /** Run at the same rate before measuring (connections warm, JIT done); not recorded. */
  warmupMs: number;
  /** Throughput = highest fixed rate whose p99 (from intended send time) stays within this. */
  p99TargetMs: number;
  /** Plans stored in the "many plans" workspace. */
  storedPlans: number;
  /** Steps per plan of the load's agents (each setStepStatus completes one; the agent then starts a new plan). */
  stepsPerPlan: number;
  /** Fixed arrival rate (per second) of the three cross-node runs: broadcast floor, event delivery, auto-unblock. */
  crossRate: number;
  /** Probes per rate search after the first repetition (which gets two more, starting from a closed-loop guess). */
  maxProbes: number;
  outFile: string;
  /** Also write docs/bench-latest.json and docs/bench.md (for the README). */
  publish: boolean;
}

/** The only reader of the environment in the bench. BENCH_QUICK=1 is a smoke run of about a minute. */
export const benchConfigFromEnv = (env: NodeJS.ProcessEnv): BenchConfig => {
  const e = EnvSchema.parse(Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('BENCH_'))));
  const quick = e.BENCH_QUICK === '1';
  return {
    quick,
    repetitions: Math.round(e.BENCH_REPS ?? (quick ? 1 : 5)),
    probeMs: e.BENCH_PROBE_MS ?? (quick ? 500 : 1500),
    warmupMs: e.BENCH_WARMUP_MS ?? (quick ? 150 : 300),
    p99TargetMs: e.BENCH_P99_TARGET_MS ?? 50,
    storedPlans: Math.round(e.BENCH_PLANS ?? (quick ? 10_000 : 100_000)),
    stepsPerPlan: Math.round(e.BENCH_STEPS ?? 50),
    crossRate: e.BENCH_CROSS_RATE ?? 100,
    maxProbes: Math.round(e.BENCH_MAX_PROBES ?? (quick ? 2 : 3)),
    outFile: e.BENCH_OUT ?? '.bench/latest.json',
    publish: e.BENCH_PUBLISH === '1',
  };
};
