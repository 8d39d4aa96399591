import type { Plan, PlanModeNote, PlanModeView } from '@planhub/shared';
import { numericStepId } from './mode.ts';

const texts = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
const notes = (value: unknown): PlanModeNote[] =>
  Array.isArray(value)
    ? value.filter((v): v is PlanModeNote => typeof v === 'string' || (!!v && typeof v === 'object'))
    : [];
const numbers = (value: unknown): number[] =>
  Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : [];
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * The plan object a 002 plan was submitted with, from what planFromImplementationPlan keeps in `details` (and
 * plan_modify changed since), for getPlanStatus: the person who approves the plan on a dashboard must see the
 * approach, risks, files and verification the agent put before them, which the 000 view otherwise leaves out.
 * Stored plans are read defensively (every list present, possibly empty), as the markdown of plan_exit reads them.
 * Undefined for a plan of another dialect, or one without a stored plan object.
 */
export const planModeView = (plan: Plan): PlanModeView | undefined => {
  if (plan.dialect !== '002') return undefined;
  const details = plan.details ?? {};
  const object = details.plan;
  if (!object || typeof object !== 'object') return undefined;
  const p = object as Record<string, unknown>;
  return {
    goal: text(details.goal) || plan.title,
    ...(typeof details.scope === 'string' ? { scope: details.scope } : {}),
    summary: text(p.summary),
    approach: text(p.approach),
    alternatives_considered: notes(p.alternatives_considered),
    risks: notes(p.risks),
    files_to_create: texts(p.files_to_create),
    files_to_modify: texts(p.files_to_modify),
    tests_to_write: notes(p.tests_to_write),
    estimated_complexity: text(p.estimated_complexity) || 'medium',
    steps: plan.steps.map((step) => {
      const d = step.details ?? {};
      return {
        step_id: step.id,
        id: numericStepId(step) ?? null,
        files: texts(d.files),
        depends_on: numbers(d.depends_on),
        verification: typeof d.verification === 'string' ? d.verification : null,
      };
    }),
  };
};
