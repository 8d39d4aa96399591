import { median } from '../stats/repetitions.ts';

/** One window of load on one build: what it served and what its node spent. */
export interface WindowSample {
  /** Operations completed per second. */
  rate: number;
  /** Node CPU (user + system) per operation, µs. */
  nodeUs: number;
  /** Redis CPU per operation, µs (0 on the memory store). */
  redisUs: number;
}

export interface SideFigures {
  rate: number;
  nodeUs: number;
  redisUs: number;
}

export interface Comparison {
  base: SideFigures;
  next: SideFigures;
  /** next ÷ base node CPU per operation, per pair of windows: median and range. */
  cpuRatio: { median: number; min: number; max: number };
  /** Pairs in which the next build spent less node CPU per operation. */
  lowerIn: number;
  pairs: number;
}

const figures = (samples: readonly WindowSample[]): SideFigures => ({
  rate: median(samples.map((s) => s.rate)),
  nodeUs: median(samples.map((s) => s.nodeUs)),
  redisUs: median(samples.map((s) => s.redisUs)),
});

/**
 * The two builds' windows, taken in pairs (window i of each ran back to back): medians per side, and the ratio of
 * node CPU per operation within each pair, which cancels the machine's drift between pairs.
 */
export const compareWindows = (base: readonly WindowSample[], next: readonly WindowSample[]): Comparison => {
  const pairs = Math.min(base.length, next.length);
  if (pairs === 0) throw new Error('No windows to compare.');
  const ratios = Array.from(
    { length: pairs },
    (_, i) => (next[i] as WindowSample).nodeUs / (base[i] as WindowSample).nodeUs,
  );
  return {
    base: figures(base.slice(0, pairs)),
    next: figures(next.slice(0, pairs)),
    cpuRatio: { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) },
    lowerIn: ratios.filter((r) => r < 1).length,
    pairs,
  };
};

/** Several rounds, each on freshly started nodes: what a process's own luck cannot skew. */
export interface RoundsSummary {
  /** Each round's median next ÷ base ratio, in the order run. */
  perRound: number[];
  /** The median, lowest and highest of those. */
  ratio: { median: number; min: number; max: number };
  /** Rounds whose median ratio was below 1. */
  lowerIn: number;
  rounds: number;
}

/**
 * The rounds' median ratios, summarised. Rounds exist because one pair of node processes can differ by 5–10 % for
 * the same code (where each process's code and heap happened to land): an A/A comparison within one round showed
 * 1.06 with all 8 pairs on one side. New processes each round turn that bias into spread between rounds.
 */
export const summarizeRounds = (rounds: readonly Comparison[]): RoundsSummary => {
  if (rounds.length === 0) throw new Error('No rounds to summarise.');
  const perRound = rounds.map((r) => r.cpuRatio.median);
  return {
    perRound,
    ratio: { median: median(perRound), min: Math.min(...perRound), max: Math.max(...perRound) },
    lowerIn: perRound.filter((r) => r < 1).length,
    rounds: rounds.length,
  };
};
