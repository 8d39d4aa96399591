import type { Plan, Step, Waiter } from '@planhub/shared';
import type { PlanHeader, PlanStepDoc } from '../../store/documents/plan-documents.ts';
import { copyWithout } from '../copy-without.ts';
import { deepFreeze } from '../deep-freeze.ts';
import { sameJson } from '../same-json.ts';

// Key lists for copyWithout, which copies plans and headers without V8's slow path for rest patterns.
/** What a plan's header holds that the plan does not. */
const NOT_PLAN_FIELDS = ['step_ids', 'orphan_waiters'] as const;
/** What a plan holds that its header does not. */
const NOT_HEADER_PARTS = ['steps', 'waiters'] as const;
/** The header's fields compared to decide whether it is written: neither the steps nor the time. */
const NOT_HEADER_FIELDS = ['steps', 'waiters', 'updated_at'] as const;

/** A plan as stored: its header and one document per step, in order. */
export interface SplitPlan {
  header: PlanHeader;
  steps: PlanStepDoc[];
}

const later = (a: string, b: string) => (b > a ? b : a);

/**
 * The plan its stored parts make: steps in the header's order, updated when any part last changed. `stepDocs` may
 * hold some of the plan's steps only (a call that reads no others).
 */
export const assemblePlan = (header: PlanHeader, stepDocs: ReadonlyArray<PlanStepDoc | undefined>): Plan => {
  const plan = copyWithout(header, NOT_PLAN_FIELDS) as Plan;
  const steps: Step[] = [];
  const waiters: Record<string, Waiter[]> = { ...header.orphan_waiters };
  let updated = header.updated_at;
  for (const doc of stepDocs) {
    if (!doc) continue;
    steps.push(doc.step);
    if (doc.waiters.length > 0) waiters[doc.step.id] = doc.waiters;
    updated = later(updated, doc.updated_at);
  }
  plan.steps = steps;
  plan.waiters = waiters;
  plan.updated_at = updated;
  return plan;
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
  const header = copyWithout(plan, NOT_HEADER_PARTS) as PlanHeader;
  const orphans = orphanWaiters(plan);
  header.updated_at = updatedAt;
  header.step_ids = plan.steps.map((s) => s.id);
  if (orphans.length > 0) header.orphan_waiters = Object.fromEntries(orphans);
  return header;
};

export const stepDocOf = (plan: Plan, step: Step, updatedAt: string): PlanStepDoc => ({
  step,
  waiters: plan.waiters[step.id] ?? [],
  updated_at: updatedAt,
});

/**
 * A plan's header fields as a call read them, without the step order (compared apart: it is most of a long plan's
 * header) and without the time. Their values are frozen, so a call cannot change them in place: a field still the
 * same value as read is unchanged.
 */
export interface HeaderFields {
  fields: Readonly<Record<string, unknown>>;
  orphans: ReadonlyArray<[string, Waiter[]]>;
}

export const headerFieldsOf = (plan: Plan): HeaderFields => ({
  fields: copyWithout(plan, NOT_HEADER_FIELDS),
  orphans: orphanWaiters(plan),
});

/** The header fields of a plan as read; its field values are frozen from then on. */
export const readHeaderFields = (plan: Plan): HeaderFields => {
  const read = headerFieldsOf(plan);
  for (const value of Object.values(read.fields)) deepFreeze(value);
  return read;
};

/**
 * Whether a stored header must be written: its fields' content differs, whatever time it carries. Most calls leave
 * every field the very value they read, found at once by reference (two JSON.stringify calls of the header were
 * about 8 % of a memory node's CPU under 50 agents reporting steps); any other value is compared by content.
 */
export const sameHeaderFields = (a: HeaderFields, b: HeaderFields): boolean =>
  sameJson(a.fields, b.fields) && sameJson(a.orphans, b.orphans);
