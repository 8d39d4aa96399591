import type { LatencySummary } from '../stats/histogram.ts';

/** One fan-in run: `flows` parents, each waiting on `children` children; `inFlight` child completions at a time. */
export interface FaninShape {
  flows: number;
  children: number;
  inFlight: number;
  /** The run stops sending after this long and reports what it measured (a slow system must not hang the bench). */
  timeoutMs: number;
  /** How long to wait for the parents' unblocks once the last child has completed. */
  graceMs: number;
}

export type FaninSystem = 'planhub' | 'bullmq';

/** What one run of one system measured, and whether the fan-in held its promise. */
export interface FaninOutcome {
  system: FaninSystem;
  flows: number;
  children: number;
  inFlight: number;
  /** Children completed (acknowledged) within the run. */
  completed: number;
  /** From the first completion sent to the last one acknowledged. */
  elapsedMs: number;
  completionsPerSec: number;
  /** Every non-ok answer, by error code ("NO_ANSWER" when the acknowledgement timed out). */
  refusals: Record<string, number>;
  /** Parents that got their unblock (PlanHub: step_unblocked pushed; BullMQ: the parent's worker picked it up). */
  unblocked: number;
  /** From the last child's completion send to the parent's unblock, over every unblocked parent. */
  latency: LatencySummary;
  /** Correctness violations (duplicate or missing unblock, missing or wrong outputs): must stay empty. */
  failures: string[];
  /** Flows whose children did not all complete (the run timed out, or a child's completion was refused for good). */
  incompleteFlows: number;
  timedOut: boolean;
  setupMs: number;
  /** 1-minute load average when the run started: the machine may be shared. */
  loadAverage: number;
}

/** The small structured output child `child` of flow `flow` hands to its parent, the same for both systems. */
export const childOutput = (flow: number, child: number) => ({ flow, child, status: 'done', summary: 'part merged' });

/** Splits `total` concurrent lanes over `owners` (at least one each), e.g. 50 over 10 subagents = 5 each. */
export const lanesPerOwner = (total: number, owners: number): number => Math.max(1, Math.round(total / owners));
