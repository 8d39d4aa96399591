import type { Figure } from '../stats/repetitions.ts';

/** Throughput runs: the highest fixed rate (req/s) meeting the p99 target, one sample per repetition. */
export const THROUGHPUT_IDS = [
  'floor.echo',
  'floor.redis',
  'planhub.memory.1',
  'planhub.memory.50',
  'planhub.redis.1',
  'planhub.redis.50',
  'planhub.redis.50.stored',
] as const;
export type ThroughputId = (typeof THROUGHPUT_IDS)[number];

/** Latency runs at one fixed rate each; a floor and the PlanHub figure it is compared with share that rate. */
export const LATENCY_IDS = [
  'floor.echo.50',
  'floor.redis.50',
  'floor.redis.1',
  'floor.broadcast',
  'planhub.memory.50',
  'planhub.refused.50',
  'planhub.redis.50',
  'planhub.redis.50.stored',
  'planhub.redis.1',
  'planhub.event',
  'planhub.unblock',
] as const;
export type LatencyId = (typeof LATENCY_IDS)[number];

export interface LatencyFigures {
  /** Arrival rate of the run, req/s. */
  rate: number;
  p50: Figure;
  p90: Figure;
  p99: Figure;
  p999: Figure;
  max: Figure;
  /** CPU time of the serving processes (servers and Redis) per request, µs. */
  cpuUs?: Figure;
  /** Failed or unanswered requests, summed over the repetitions. */
  errors: number;
  firstError?: string;
}

/** One system's fan-in at one size, over the repetitions (see fanin/shape.ts for what a run measures). */
export interface FaninFigures {
  system: 'planhub' | 'bullmq';
  flows: number;
  children: number;
  inFlight: number;
  completionsPerSec: Figure;
  unblockP50: Figure;
  unblockP99: Figure;
  /** Non-ok answers per repetition, and summed by code over the repetitions. */
  refusals: Figure;
  refusalsByCode: Record<string, number>;
  /** Children completed and expected, parents unblocked and expected, summed over the repetitions. */
  completed: number;
  expectedChildren: number;
  unblocked: number;
  expectedParents: number;
  /** Correctness violations over every repetition: any of them fails the bench. */
  failures: string[];
  /** Repetitions that hit the time bound before every child completed. */
  timedOut: number;
  setupSeconds: Figure;
  loadAverage: Figure;
}

/** A bystander's latency in one kind of phase (quiet, or under the attack), one figure per repetition. */
export interface AttackPhaseFigures {
  /** Calls measured, summed over the repetitions. */
  calls: number;
  p50: Figure;
  p90: Figure;
  p99: Figure;
  max: Figure;
  /** Failed or unanswered bystander calls, summed over the repetitions. */
  errors: number;
  firstError?: string;
}

/** The huge-frame attack (frame-attack/suite.ts): a bystander's latency in quiet and loud phases that alternate. */
export interface FrameAttackFigures {
  /** The bystander's fixed arrival rate, calls/s. */
  rate: number;
  framesPerSecond: number;
  frameKeys: number;
  frameBytes: number;
  /** Quiet/loud pairs per repetition, and the measured length of each phase. */
  rounds: number;
  phaseMs: number;
  quiet: AttackPhaseFigures;
  loud: AttackPhaseFigures;
  /** The attacker's answers by code over the repetitions (all RESOURCE_EXHAUSTED when the frame guard refuses them). */
  answersByCode: Record<string, number>;
  /** Answers that were not the frame guard's refusal: each one a frame that went further than the raw-text scan. */
  notRefusedByScan: number;
  loadAverage: Figure;
}

/** The crowded workspace (crowd/suite.ts): a bystander's latency while another workspace's watchers get events. */
export interface CrowdFigures {
  /** The bystander's fixed arrival rate, calls/s. */
  rate: number;
  /** Connections watching the crowded workspace. */
  watchers: number;
  /** Events per second in the crowded workspace during loud phases. */
  eventsPerSecond: number;
  /** Quiet/loud pairs per repetition, and the measured length of each phase. */
  rounds: number;
  phaseMs: number;
  quiet: AttackPhaseFigures;
  loud: AttackPhaseFigures;
  /** Pushes the watchers received over the measured phases. */
  pushes: number;
  loadAverage: Figure;
}

/** `planhub.100`, `bullmq.1000`: the system and the number of flows. */
export const faninId = (system: FaninFigures['system'], flows: number) => `${system}.${flows}`;

export interface BenchResults {
  throughput: Partial<Record<ThroughputId, Figure>>;
  latency: Partial<Record<LatencyId, LatencyFigures>>;
  /** The fan-in scenario, by faninId. */
  fanin?: Record<string, FaninFigures>;
  frameAttack?: FrameAttackFigures;
  crowd?: CrowdFigures;
  /** What was not measured, or measured differently than asked, and why. */
  notes: string[];
}

export const emptyResults = (): BenchResults => ({ throughput: {}, latency: {}, fanin: {}, notes: [] });
