import { parseArgs } from 'node:util';
import { z } from 'zod';
import { CROWD_WATCHERS } from './crowd/shape.ts';
import { PRESENCE_HEARTBEAT_MS } from './load/departures.ts';

const num = () => z.coerce.number().positive().optional();

const EnvSchema = z.object({
  BENCH_QUICK: z.enum(['0', '1', '']).optional(),
  BENCH_REPS: num(),
  BENCH_PROBE_MS: num(),
  BENCH_WARMUP_MS: num(),
  BENCH_P99_TARGET_MS: num(),
  BENCH_SETTLE_MS: z.coerce.number().min(0).optional(),
  BENCH_PLANS: num(),
  BENCH_STEPS: num(),
  BENCH_CROSS_RATE: num(),
  BENCH_MAX_PROBES: num(),
  BENCH_OUT: z.string().optional(),
  BENCH_PUBLISH: z.enum(['0', '1', '']).optional(),
  BENCH_ONLY: z.enum(['all', 'floors', 'fanin', 'isolation', 'frame-attack', 'crowd', '']).optional(),
  BENCH_ISOLATION_BUSY: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'a comma-separated list of busy workspace counts, e.g. 1,5,20')
    .optional(),
  BENCH_ISOLATION_WINDOW_MS: num(),
  BENCH_ATTACK_ROUNDS: num(),
  BENCH_ATTACK_PHASE_MS: num(),
  BENCH_CROWD_ROUNDS: num(),
  BENCH_CROWD_PHASE_MS: num(),
  BENCH_CROWD_WATCHERS: num(),
  BENCH_FANIN_FLOWS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'a comma-separated list of flow counts, e.g. 100,1000')
    .optional(),
  BENCH_FANIN_CHILDREN: num(),
  BENCH_FANIN_IN_FLIGHT: num(),
  BENCH_FANIN_TIMEOUT_S: num(),
  BENCH_SERVER: z.enum(['bundle', 'source', '']).optional(),
});

/** Command-line options, each the same as its BENCH_* variable (the command line wins). */
const ARGS = {
  only: 'BENCH_ONLY',
  reps: 'BENCH_REPS',
  quick: 'BENCH_QUICK',
  out: 'BENCH_OUT',
  'fanin-flows': 'BENCH_FANIN_FLOWS',
  'fanin-children': 'BENCH_FANIN_CHILDREN',
  'fanin-in-flight': 'BENCH_FANIN_IN_FLIGHT',
  'fanin-timeout': 'BENCH_FANIN_TIMEOUT_S',
  'isolation-busy': 'BENCH_ISOLATION_BUSY',
  'attack-rounds': 'BENCH_ATTACK_ROUNDS',
  'attack-phase-ms': 'BENCH_ATTACK_PHASE_MS',
  'crowd-rounds': 'BENCH_CROWD_ROUNDS',
  'crowd-phase-ms': 'BENCH_CROWD_PHASE_MS',
  'crowd-watchers': 'BENCH_CROWD_WATCHERS',
  server: 'BENCH_SERVER',
} as const;

const argsAsEnv = (argv: readonly string[]): Record<string, string> => {
  const { values } = parseArgs({
    args: argv.filter((a) => a !== '--'),
    // --quick is a switch, as docs/bench-method.md writes it (--no-quick overrides BENCH_QUICK=1).
    options: Object.fromEntries(
      Object.keys(ARGS).map((name) => [name, { type: name === 'quick' ? ('boolean' as const) : ('string' as const) }]),
    ),
    strict: true,
    allowNegative: true,
  });
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => [
      ARGS[name as keyof typeof ARGS],
      typeof value === 'boolean' ? (value ? '1' : '0') : String(value),
    ]),
  );
};

/** The fan-in scenario's shape (issue 9): F flows, each a parent waiting on K children, N completions in flight. */
export interface FaninConfig {
  flows: number[];
  children: number;
  inFlight: number;
  /** Time bound of one run: it stops sending then and reports what it measured. */
  timeoutMs: number;
  /** How long a run waits for the last unblocks after its last child completed. */
  graceMs: number;
}

/**
 * What the PlanHub nodes run: the production bundle under plain node (the default: what the image runs), or the
 * TypeScript sources through tsx (`source`, as `pnpm start` runs them).
 */
export type ServerBuild = 'bundle' | 'source';

export interface BenchConfig {
  quick: boolean;
  /** Repetitions of every measurement (docs/invariants.md, performance targets: at least 5). */
  repetitions: number;
  /** Measured part of one fixed-rate run. */
  probeMs: number;
  /** Run at the same rate before measuring (connections warm, JIT done); not recorded. */
  warmupMs: number;
  /** Throughput = highest fixed rate whose p99 (from intended send time) stays within this. */
  p99TargetMs: number;
  /** How long after the last agent left a run starts measuring (load/departures.ts); 0 in a quick run. */
  settleMs: number;
  /** Plans stored in the "many plans" workspace. */
  storedPlans: number;
  /** Steps per plan of the load's agents (each setStepStatus completes one; the agent then starts a new plan). */
  stepsPerPlan: number;
  /** Fixed arrival rate (per second) of the three cross-node runs: broadcast floor, event delivery, auto-unblock. */
  crossRate: number;
  /** Probes per rate search after the first repetition (which gets two more, starting from a closed-loop guess). */
  maxProbes: number;
  /** Which part runs: everything, or the floor comparisons, or one of the fan-in, isolation, frame-attack and crowd scenarios. */
  only: 'all' | 'floors' | 'fanin' | 'isolation' | 'frame-attack' | 'crowd';
  fanin: FaninConfig;
  /** Node B's CPU for workspaces it does not serve, at each number of busy workspaces on node A. */
  isolation: { busy: number[]; windowMs: number };
  /** A bystander's latency in quiet and loud (huge frames arriving) phases that alternate, `rounds` pairs of them. */
  frameAttack: { rounds: number; phaseMs: number };
  /** A bystander's latency while another workspace's many watchers get events, in alternating quiet and loud phases. */
  crowd: { rounds: number; phaseMs: number; watchers: number };
  server: ServerBuild;
  outFile: string;
  /** Also write docs/bench-latest.json and docs/bench.md (for the README). */
  publish: boolean;
}

/**
 * The only reader of the environment and command line in the bench. BENCH_QUICK=1 is a smoke run of about a minute;
 * `--only fanin --reps 1` runs just the fan-in scenario once, `--only isolation` just the isolation one,
 * `--only frame-attack` just the huge-frame attack, `--only crowd` just the crowded workspace.
 */
export const benchConfigFromEnv = (env: NodeJS.ProcessEnv, argv: readonly string[] = []): BenchConfig => {
  const fromEnv = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('BENCH_')));
  const e = EnvSchema.parse({ ...fromEnv, ...argsAsEnv(argv) });
  const quick = e.BENCH_QUICK === '1';
  const only = e.BENCH_ONLY || 'all';
  return {
    quick,
    repetitions: Math.round(e.BENCH_REPS ?? (quick ? 1 : 5)),
    probeMs: e.BENCH_PROBE_MS ?? (quick ? 500 : 1500),
    warmupMs: e.BENCH_WARMUP_MS ?? (quick ? 150 : 300),
    p99TargetMs: e.BENCH_P99_TARGET_MS ?? 50,
    // A heartbeat for the offline reports to start, and a second for them to end (they took 0.1–0.2 s).
    settleMs: e.BENCH_SETTLE_MS ?? (quick ? 0 : PRESENCE_HEARTBEAT_MS + 1000),
    storedPlans: Math.round(e.BENCH_PLANS ?? (quick ? 10_000 : 100_000)),
    stepsPerPlan: Math.round(e.BENCH_STEPS ?? 50),
    crossRate: e.BENCH_CROSS_RATE ?? 100,
    maxProbes: Math.round(e.BENCH_MAX_PROBES ?? (quick ? 2 : 3)),
    only,
    fanin: {
      flows: (e.BENCH_FANIN_FLOWS ?? (quick ? '100' : '100,1000')).split(',').map(Number),
      children: Math.round(e.BENCH_FANIN_CHILDREN ?? 10),
      inFlight: Math.round(e.BENCH_FANIN_IN_FLIGHT ?? 50),
      timeoutMs: (e.BENCH_FANIN_TIMEOUT_S ?? 300) * 1000,
      graceMs: 30_000,
    },
    isolation: {
      busy: (e.BENCH_ISOLATION_BUSY ?? '1,5,20').split(',').map(Number),
      windowMs: e.BENCH_ISOLATION_WINDOW_MS ?? (quick ? 1000 : 3000),
    },
    frameAttack: {
      rounds: Math.round(e.BENCH_ATTACK_ROUNDS ?? (quick ? 2 : 8)),
      phaseMs: e.BENCH_ATTACK_PHASE_MS ?? 500,
    },
    crowd: {
      rounds: Math.round(e.BENCH_CROWD_ROUNDS ?? (quick ? 2 : 6)),
      phaseMs: e.BENCH_CROWD_PHASE_MS ?? 2000,
      watchers: Math.round(e.BENCH_CROWD_WATCHERS ?? (quick ? 100 : CROWD_WATCHERS)),
    },
    server: e.BENCH_SERVER || 'bundle',
    outFile: e.BENCH_OUT ?? (only === 'all' || only === 'floors' ? '.bench/latest.json' : `.bench/latest-${only}.json`),
    publish: e.BENCH_PUBLISH === '1',
  };
};
