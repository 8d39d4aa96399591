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
  'planhub.redis.50',
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

export interface BenchResults {
  throughput: Partial<Record<ThroughputId, Figure>>;
  latency: Partial<Record<LatencyId, LatencyFigures>>;
  /** What was not measured, or measured differently than asked, and why. */
  notes: string[];
}

export const emptyResults = (): BenchResults => ({ throughput: {}, latency: {}, notes: [] });
