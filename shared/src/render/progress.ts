import type { Progress, Step, StepStatus } from '../model.ts';

/** Seed 000's progress from how many steps have each status; percentage rounded to one decimal. */
export const progressOfCounts = (counts: Readonly<Record<StepStatus, number>>): Progress => {
  const total =
    counts.pending + counts.in_progress + counts.blocked + counts.completed + counts.failed + counts.skipped;
  const percentage = total === 0 ? 0 : Math.round((counts.completed / total) * 1000) / 10;
  return {
    completed: counts.completed,
    total,
    percentage,
    percent: percentage,
    failed: counts.failed,
    skipped: counts.skipped,
    in_progress: counts.in_progress,
    pending: counts.pending,
    blocked: counts.blocked,
  };
};

/** How many of `steps` have each status. */
export const statusCounts = (steps: readonly Pick<Step, 'status'>[]): Record<StepStatus, number> => {
  const counts = { pending: 0, in_progress: 0, completed: 0, failed: 0, skipped: 0, blocked: 0 };
  for (const step of steps) counts[step.status] += 1;
  return counts;
};

/** Seed 000's progress, as the superset of seed and upstream counts. */
export const progressOf = (steps: readonly Pick<Step, 'status'>[]): Progress => progressOfCounts(statusCounts(steps));
