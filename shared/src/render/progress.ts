import type { Progress, Step } from '../model.ts';

/** Seed 000's progress, as the superset of seed and upstream counts; percentage rounded to one decimal. */
export const progressOf = (steps: readonly Pick<Step, 'status'>[]): Progress => {
  const count = (status: Step['status']) => steps.filter((s) => s.status === status).length;
  const total = steps.length;
  const completed = count('completed');
  const percentage = total === 0 ? 0 : Math.round((completed / total) * 1000) / 10;
  return {
    completed,
    total,
    percentage,
    percent: percentage,
    failed: count('failed'),
    skipped: count('skipped'),
    in_progress: count('in_progress'),
    pending: count('pending'),
    blocked: count('blocked'),
  };
};
