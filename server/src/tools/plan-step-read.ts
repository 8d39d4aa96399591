import type { Plan } from '@planhub/shared';
import { assemblePlan } from '../core/plans/plan-split.ts';
import { decodeBrief } from '../core/plans/step-brief.ts';
import type { StepTally } from '../core/plans/step-tally.ts';
import { planDocuments, type PlanHeader, type PlanStepDoc } from '../store/documents/plan-documents.ts';
import { docKeys, hashKeys } from '../store/keys.ts';
import type { Tx } from '../store/transaction.ts';
import { readPlan } from './live-plans.ts';
import { decodeStep, rememberRead } from './plan-repository.ts';
import { tallyFromRanks, tallyRead } from './step-ranks.ts';

/** A plan's step briefs, read once per attempt (with the call's other reads when it prefetched them). */
const readBriefs = (tx: Tx, planId: string): Promise<Record<string, string>> => tx.hash(hashKeys.stepBriefs(planId));

/** The documents a step change of `stepId` reads, checked: the plan's header and the step. */
export const stepReadKeys = (planId: string, stepId: string): string[] => [
  docKeys.plan(planId),
  docKeys.planStep(planId, stepId),
];

/**
 * The plan as a change of one of its steps needs it, in one round trip whatever its size: the header and that step
 * in full (checked at the commit), every other step as its brief (status, sequence, description; unchecked, and the
 * call may not change them). Without `stepId` every step comes in brief (appending a step). The whole plan is read
 * instead when the change may touch other steps (same-plan steps wait on this one), when the step waits on other
 * plans (its live state), or when a brief is missing.
 */
export const readPlanForStep = async (tx: Tx, planId: string, stepId?: string): Promise<Plan | undefined> => {
  const briefs = readBriefs(tx, planId);
  const [rootRaw, stepRaw] = await tx.getMany(
    stepId === undefined ? [docKeys.plan(planId)] : stepReadKeys(planId, stepId),
  );
  const root = planDocuments.planRoot.decode(docKeys.plan(planId), rootRaw);
  if (root?.layout !== 'header' || (stepId !== undefined && !root.header.step_ids.includes(stepId)))
    return readPlan(tx, planId);
  const own = stepId === undefined ? undefined : decodeStep(docKeys.planStep(planId, stepId), stepRaw);
  if (own && (own.waiters.length > 0 || own.step.status === 'blocked')) return readPlan(tx, planId);
  const stored = await briefs;
  const parts: PlanStepDoc[] = [];
  for (const id of root.header.step_ids) {
    if (own && id === stepId) {
      parts.push(own);
      continue;
    }
    const step = decodeBrief(id, stored[id]);
    if (!step) return readPlan(tx, planId);
    // A brief has no waiters (a step with some is read whole) and no time of its own.
    parts.push({ step, waiters: [], updated_at: '' });
  }
  const plan = assemblePlan(root.header, parts);
  rememberRead(tx, [plan], new Set(), { full: new Set(stepId === undefined ? [] : [stepId]) });
  return plan;
};

/** A plan as a change of its step `stepId` (or an append) reads it, and its steps' tally when they were not read. */
export interface StepChangeRead {
  plan: Plan;
  tally?: StepTally;
}

/**
 * The plan's header, the step `stepId` unless absent and, `counted`, its ranks, as a call that reads no other step
 * needs them (undefined: a plan of the earlier layout, or none).
 */
const readHeaderAndTally = async (tx: Tx, planId: string, stepId: string | undefined, counted = true) => {
  const ranks = counted ? tx.range(tallyRead(planId)) : Promise.resolve([]);
  // Awaited only after the documents: when their read fails first (the call's store deadline), this one's failure
  // must not be left unhandled, which ends a process that has no handler for it.
  ranks.catch(() => undefined);
  const [rootRaw, stepRaw] = await tx.getMany(
    stepId === undefined ? [docKeys.plan(planId)] : stepReadKeys(planId, stepId),
  );
  const root = planDocuments.planRoot.decode(docKeys.plan(planId), rootRaw);
  if (root?.layout !== 'header') return undefined;
  return { header: root.header, stepRaw, ranks };
};

/** The plan of `header` holding only `steps`, remembered as read so (its write may add steps, never touch others). */
const planWithout = (tx: Tx, header: PlanHeader, steps: PlanStepDoc[]): Plan => {
  const plan = assemblePlan(header, steps);
  rememberRead(tx, [plan], new Set(), { full: new Set(plan.steps.map((s) => s.id)), alone: header.step_ids });
  return plan;
};

/**
 * The plan as an append needs it, in one round trip whatever its length: the header (checked) and the steps'
 * tally; `plan.steps` holds none of them. Falls back to readPlanForStep (every step in brief) for a plan whose
 * ranks do not cover every step.
 */
export const readForAppend = async (tx: Tx, planId: string): Promise<StepChangeRead | undefined> => {
  const read = await readHeaderAndTally(tx, planId, undefined);
  const tally = read && tallyFromRanks(await read.ranks, read.header.step_ids.length);
  if (!read || !tally) {
    const plan = await readPlanForStep(tx, planId);
    return plan && { plan };
  }
  return { plan: planWithout(tx, read.header, []), tally };
};

/**
 * The plan as a change of its step `stepId` needs it, in one round trip whatever its length: the header and the
 * step in full (checked at the commit), the other steps only as counted by status with the first open ones named
 * (tools/step-ranks.ts). `plan.steps` then holds that step alone. Falls back to readPlanForStep (briefs, or the whole
 * plan) for a plan whose ranks do not cover every step, and when the change may touch other steps.
 */
/**
 * A plan as a call that only looks at its step `stepId` reads it (a dependency's target): the header and that step,
 * `plan.steps` holding it alone. The whole plan is read when that step is blocked (its live state) or not in it.
 */
export const readOneStep = async (tx: Tx, planId: string, stepId: string): Promise<Plan | undefined> => {
  const read = await readHeaderAndTally(tx, planId, stepId, false);
  if (!read?.header.step_ids.includes(stepId)) return readPlanForStep(tx, planId, stepId);
  const own = decodeStep(docKeys.planStep(planId, stepId), read.stepRaw);
  if (own.step.status === 'blocked') return readPlanForStep(tx, planId, stepId);
  return planWithout(tx, read.header, [own]);
};

export const readStepChange = async (tx: Tx, planId: string, stepId: string): Promise<StepChangeRead | undefined> => {
  const read = await readHeaderAndTally(tx, planId, stepId);
  const fallback = async () => {
    const plan = await readPlanForStep(tx, planId, stepId);
    return plan && { plan };
  };
  if (!read?.header.step_ids.includes(stepId)) return fallback();
  const own = decodeStep(docKeys.planStep(planId, stepId), read.stepRaw);
  if (own.waiters.length > 0 || own.step.status === 'blocked') return fallback();
  const tally = tallyFromRanks(await read.ranks, read.header.step_ids.length);
  if (!tally) return fallback();
  return { plan: planWithout(tx, read.header, [own]), tally };
};
