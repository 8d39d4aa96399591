import type { Plan, Step, Waiter } from '@planhub/shared';
import type { PlanHeader, PlanStepDoc } from '../../store/documents/plan-documents.ts';

/** A plan as stored: its header and one document per step, in order. */
export interface SplitPlan {
  header: PlanHeader;
  steps: PlanStepDoc[];
}

const later = (a: string, b: string) => (b > a ? b : a);

/** The plan its stored parts make: steps in the header's order, updated when any part last changed. */
export const assemblePlan = (header: PlanHeader, stepDocs: ReadonlyArray<PlanStepDoc | undefined>): Plan => {
  const { step_ids: _ids, orphan_waiters: orphans, ...fields } = header;
  const steps: Step[] = [];
  const waiters: Record<string, Waiter[]> = { ...orphans };
  let updated = header.updated_at;
  for (const doc of stepDocs) {
    if (!doc) continue;
    steps.push(doc.step);
    if (doc.waiters.length > 0) waiters[doc.step.id] = doc.waiters;
    updated = later(updated, doc.updated_at);
  }
  return { ...fields, steps, waiters, updated_at: updated };
};

/** Same-plan waiters kept under an id that is not one of the plan's steps (none when no step has waiters). */
const orphanWaiters = (plan: Plan): Array<[string, Waiter[]]> => {
  const entries = Object.entries(plan.waiters);
  if (entries.length === 0) return [];
  const ids = new Set(plan.steps.map((s) => s.id));
  return entries.filter(([id, list]) => !ids.has(id) && list.length > 0);
};

/** The header of `plan`; `updatedAt` is when the header changed (not the plan's own time). */
export const headerOf = (plan: Plan, updatedAt: string): PlanHeader => {
  const { steps, waiters: _waiters, ...fields } = plan;
  const orphans = orphanWaiters(plan);
  return {
    ...fields,
    updated_at: updatedAt,
    step_ids: steps.map((s) => s.id),
    ...(orphans.length > 0 ? { orphan_waiters: Object.fromEntries(orphans) } : {}),
  };
};

export const stepDocOf = (plan: Plan, step: Step, updatedAt: string): PlanStepDoc => ({
  step,
  waiters: plan.waiters[step.id] ?? [],
  updated_at: updatedAt,
});

/**
 * What decides whether a stored part must be written: its content, whatever time it carries. The header's step order
 * is left out (the caller compares it id by id): it is most of a long plan's header.
 */
export const headerFieldsContent = (plan: Plan): string => {
  const { steps: _steps, waiters: _waiters, ...fields } = plan;
  return JSON.stringify([{ ...fields, updated_at: '' }, orphanWaiters(plan)]);
};
export const stepContent = (doc: { step: Step; waiters: readonly Waiter[] }): string =>
  JSON.stringify([doc.step, doc.waiters]);
