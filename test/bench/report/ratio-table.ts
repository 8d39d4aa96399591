import type { Figure } from '../stats/repetitions.ts';
import { ratioOf } from '../stats/repetitions.ts';
import type { BenchResults, LatencyId, ThroughputId } from './results.ts';

export interface Target {
  op: '>=' | '<=';
  value: number;
  /** Where the target comes from, when not docs/invariants.md, performance targets (e.g. "issue 9"). */
  source?: string;
  /** The row judges a figure itself (e.g. a count of refusals), not a ratio. */
  absolute?: boolean;
}

export type Verdict = 'pass' | 'miss' | 'info' | 'not measured';

export interface RatioRow {
  label: string;
  numerator?: Figure;
  denominator?: Figure;
  unit: string;
  ratio?: Figure;
  target?: Target;
  verdict: Verdict;
}

export type Pick = (r: BenchResults) => Figure | undefined;
const tput =
  (id: ThroughputId): Pick =>
  (r) =>
    r.throughput[id];
const lat =
  (id: LatencyId, field: 'p50' | 'p99' | 'cpuUs'): Pick =>
  (r) =>
    r.latency[id]?.[field];

export interface RatioSpec {
  label: string;
  unit: string;
  numerator: Pick;
  /** Absent for a row that judges the numerator itself (its target is `absolute`). */
  denominator?: Pick;
  target?: Target;
}

const ISSUE_9 = 'issue 9';

/** docs/invariants.md's performance targets first, then reference ratios without a target. */
export const RATIO_SPECS: readonly RatioSpec[] = [
  {
    label: 'setStepStatus throughput, 50 agents, Redis ÷ Redis floor',
    unit: 'req/s',
    numerator: tput('planhub.redis.50'),
    denominator: tput('floor.redis'),
    target: { op: '>=', value: 0.8 },
  },
  {
    label: 'setStepStatus throughput, 50 agents, Redis ÷ Redis floor (state-layer milestone)',
    unit: 'req/s',
    numerator: tput('planhub.redis.50'),
    denominator: tput('floor.redis'),
    target: { op: '>=', value: 0.5, source: ISSUE_9 },
  },
  {
    label: 'setStepStatus p99, 50 agents, Redis ÷ Redis floor p99 (same rate)',
    unit: 'ms',
    numerator: lat('planhub.redis.50', 'p99'),
    denominator: lat('floor.redis.50', 'p99'),
    target: { op: '<=', value: 1.5 },
  },
  {
    label: 'cross-node event delivery p99 ÷ broadcast floor p99',
    unit: 'ms',
    numerator: lat('planhub.event', 'p99'),
    denominator: lat('floor.broadcast', 'p99'),
    target: { op: '<=', value: 1.5 },
  },
  {
    label: 'auto-unblock across nodes p50 ÷ one cross-node event p50',
    unit: 'ms',
    numerator: lat('planhub.unblock', 'p50'),
    denominator: lat('planhub.event', 'p50'),
    target: { op: '<=', value: 2 },
  },
  {
    label: 'setStepStatus throughput, 100k stored plans ÷ 10 stored plans',
    unit: 'req/s',
    numerator: tput('planhub.redis.50.stored'),
    denominator: tput('planhub.redis.50'),
    target: { op: '>=', value: 0.9 },
  },
  {
    // The throughput row above compares two rate searches, each starting from its previous result, on a machine
    // whose speed drifts between them. These two compare the same load at one rate, run back to back in each
    // repetition; a CPU ratio of at most 1/0.9 = 1.11 is the same capacity.
    label: 'CPU per request (servers + Redis), setStepStatus 50 agents, 100k stored plans ÷ 10 (same rate)',
    unit: 'µs',
    numerator: lat('planhub.redis.50.stored', 'cpuUs'),
    denominator: lat('planhub.redis.50', 'cpuUs'),
  },
  {
    label: 'setStepStatus p99, 50 agents, 100k stored plans ÷ 10 (same rate)',
    unit: 'ms',
    numerator: lat('planhub.redis.50.stored', 'p99'),
    denominator: lat('planhub.redis.50', 'p99'),
  },
  {
    label: 'setStepStatus throughput, 1 agent, Redis ÷ Redis floor',
    unit: 'req/s',
    numerator: tput('planhub.redis.1'),
    denominator: tput('floor.redis'),
  },
  {
    label: 'setStepStatus p99, 1 agent, Redis ÷ Redis floor p99 (1 connection, same rate)',
    unit: 'ms',
    numerator: lat('planhub.redis.1', 'p99'),
    denominator: lat('floor.redis.1', 'p99'),
  },
  {
    label: 'setStepStatus throughput, 50 agents, memory ÷ echo floor',
    unit: 'req/s',
    numerator: tput('planhub.memory.50'),
    denominator: tput('floor.echo'),
    target: { op: '>=', value: 0.5, source: ISSUE_9 },
  },
  {
    label: 'setStepStatus p99, 50 agents, memory ÷ echo floor p99 (same rate)',
    unit: 'ms',
    numerator: lat('planhub.memory.50', 'p99'),
    denominator: lat('floor.echo.50', 'p99'),
  },
  {
    label: 'auto-unblock across nodes p50 ÷ broadcast floor p50',
    unit: 'ms',
    numerator: lat('planhub.unblock', 'p50'),
    denominator: lat('floor.broadcast', 'p50'),
  },
  {
    label: 'CPU per request (servers + Redis), setStepStatus 50 agents Redis ÷ Redis floor',
    unit: 'µs',
    numerator: lat('planhub.redis.50', 'cpuUs'),
    denominator: lat('floor.redis.50', 'cpuUs'),
    target: { op: '<=', value: 1.5, source: ISSUE_9 },
  },
  {
    label: 'CPU per request, setStepStatus 50 agents memory ÷ echo floor',
    unit: 'µs',
    numerator: lat('planhub.memory.50', 'cpuUs'),
    denominator: lat('floor.echo.50', 'cpuUs'),
  },
  {
    // What the transport, admission and dispatch cost before any tool runs: the part of the above no state layer moves.
    label: 'CPU per request, a call naming no tool (refused) memory ÷ echo floor',
    unit: 'µs',
    numerator: lat('planhub.refused.50', 'cpuUs'),
    denominator: lat('floor.echo.50', 'cpuUs'),
  },
  {
    label: 'CPU per request (servers + Redis), cross-node event ÷ broadcast floor',
    unit: 'µs',
    numerator: lat('planhub.event', 'cpuUs'),
    denominator: lat('floor.broadcast', 'cpuUs'),
  },
];

export const verdictOf = (ratio: Figure | undefined, target: Target | undefined): Verdict => {
  if (!ratio || !Number.isFinite(ratio.median)) return 'not measured';
  if (!target) return 'info';
  const ok = target.op === '>=' ? ratio.median >= target.value : ratio.median <= target.value;
  return ok ? 'pass' : 'miss';
};

export const ratioRows = (results: BenchResults, specs: readonly RatioSpec[] = RATIO_SPECS): RatioRow[] =>
  specs.map((spec) => {
    const numerator = spec.numerator(results);
    const denominator = spec.denominator?.(results);
    const ratio = !spec.denominator
      ? numerator
      : numerator && denominator
        ? ratioOf(numerator, denominator)
        : undefined;
    return {
      label: spec.label,
      unit: spec.unit,
      verdict: verdictOf(ratio, spec.target),
      ...(numerator ? { numerator } : {}),
      ...(denominator ? { denominator } : {}),
      ...(ratio ? { ratio } : {}),
      ...(spec.target ? { target: spec.target } : {}),
    };
  });
