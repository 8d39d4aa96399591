import type { Plan, Step, StepStatus } from '../model.ts';
import { neutralize } from './neutralize.ts';
import { progressOf } from './progress.ts';

const MARKS: Record<StepStatus, string> = {
  completed: '[x]',
  in_progress: '[>]',
  pending: '[ ]',
  failed: '[!]',
  skipped: '[-]',
  blocked: '[~]',
};

/** The `plan` user command of seed 000: for people, never sent to a model (so agent text is neutralised). */
export const renderPlanText = (
  plan: Pick<Plan, 'title' | 'status'> & { steps: readonly Pick<Step, 'id' | 'status' | 'description'>[] },
  heading = 'Current Plan',
): string => {
  const progress = progressOf(plan.steps);
  const pct = Number.isInteger(progress.percentage) ? progress.percentage : progress.percentage.toFixed(1);
  return [
    `${heading}: ${neutralize(plan.title)}`,
    `Status: ${plan.status}`,
    '',
    'Steps:',
    ...plan.steps.map((s) => `  ${MARKS[s.status]} ${neutralize(s.id)}: ${neutralize(s.description)}`),
    '',
    `Progress: ${progress.completed}/${progress.total} (${pct}%)`,
  ].join('\n');
};
