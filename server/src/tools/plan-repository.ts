import type { Plan, PlanStatus, Step, Waiter } from '@planhub/shared';
import { corruptDocument } from '../store/documents/define.ts';
import { planDocuments, type PlanStepDoc } from '../store/documents/plan-documents.ts';
import { docKeys, hashKeys } from '../store/keys.ts';
import type { Tx } from '../store/transaction.ts';
import { sameJson } from '../core/same-json.ts';
import {
  assemblePlan,
  type HeaderFields,
  headerFieldsOf,
  headerOf,
  readHeaderFields,
  sameHeaderFields,
  stepDocOf,
} from '../core/plans/plan-split.ts';
import { encodeBrief } from '../core/plans/step-brief.ts';
import { stepIdsHint } from './plan-shape-hint.ts';
import { rankOps, unrankOps } from './step-ranks.ts';

/**
 * Plans are stored as a header (`plan:<id>`) and one document per step (`step:<id>:<step>`). A call reads the header
 * checked and the steps unchecked, and writes only the parts that changed: a step change writes that step, so the
 * owner's changes of different steps never conflict, while a change of the header (status, step order) conflicts
 * with every call that read it.
 */

interface ReadState {
  /** Stored whole by the earlier layout: the next write stores every part. */
  whole: boolean;
  /** The header's fields as read (see HeaderFields). */
  fields: HeaderFields;
  /**
   * The steps as read, in order, and their same-plan waiters. Plans are values (a change works on a copy and
   * replaces the step objects it changes, and read steps are frozen), so a step still the same object as read is
   * unchanged; any other is compared by content.
   */
  steps: readonly Step[];
  waiters: Readonly<Record<string, readonly Waiter[]>>;
  /** By id, built only when the write's step order differs from the read's. */
  byId?: Map<string, Step>;
  status: PlanStatus;
  working_dir: string | undefined;
  /** Set when the plan's steps were read in brief (plan-step-read.ts): the call must not change those. */
  inBrief: BriefRead | undefined;
}

/** What each call's transaction read of each plan, as it read it (the live view): what its write is compared to. */
const reads = new WeakMap<Tx, Map<string, ReadState>>();

const stepKeysOf = (planId: string, stepIds: readonly string[]) => stepIds.map((s) => docKeys.planStep(planId, s));

/** The keys a read of the plan loads, for a call that prefetches them with its own in one round trip. */
export const planReadKeys = (workspace: string, planId: string) => ({
  checked: [docKeys.plan(planId)],
  unchecked: stepKeysOf(planId, stepIdsHint.get(workspace, planId) ?? []),
});

export const decodeStep = (key: string, raw: unknown): PlanStepDoc => {
  const doc = planDocuments.planStep.decode(key, raw);
  if (!doc) throw corruptDocument(key, 'plan step: the plan names this step but its document is missing');
  return doc;
};

/** Plans by id as stored (undefined where missing), headers checked, steps unchecked; usually one round trip. */
export const loadStoredPlans = async (
  tx: Tx,
  planIds: readonly string[],
): Promise<{ plans: Array<Plan | undefined>; whole: Set<string> }> => {
  const keys = planIds.map((id) => planReadKeys(tx.workspace, id));
  await tx.prefetch({ checked: keys.flatMap((k) => k.checked), unchecked: keys.flatMap((k) => k.unchecked) });
  const roots = (await tx.getMany(planIds.map(docKeys.plan))).map((raw, i) =>
    planDocuments.planRoot.decode(docKeys.plan(planIds[i] ?? ''), raw),
  );
  const stepKeys = roots.map((root, i) =>
    root?.layout === 'header' ? stepKeysOf(planIds[i] ?? '', root.header.step_ids) : [],
  );
  // Steps the hint did not name come in a second round trip; the cache answers the rest.
  const raws = await tx.getUnchecked(stepKeys.flat());
  let at = 0;
  const whole = new Set<string>();
  const plans = roots.map((root, i) => {
    const keysOfPlan = stepKeys[i] ?? [];
    const docs = raws.slice(at, (at += keysOfPlan.length));
    if (!root) return undefined;
    if (root.layout === 'whole') {
      whole.add(root.plan.plan_id);
      return root.plan;
    }
    stepIdsHint.set(tx.workspace, root.header.plan_id, root.header.step_ids);
    return assemblePlan(
      root.header,
      docs.map((raw, j) => decodeStep(keysOfPlan[j] ?? '', raw)),
    );
  });
  return { plans, whole };
};

const stateOf = (plan: Plan, whole: boolean, inBrief: BriefRead | undefined): ReadState => {
  for (const step of plan.steps) Object.freeze(step);
  return {
    whole,
    inBrief,
    fields: readHeaderFields(plan),
    steps: plan.steps,
    waiters: { ...plan.waiters },
    status: plan.status,
    working_dir: plan.working_dir,
  };
};

const sameOrder = (a: readonly Step[], b: readonly Step[]): boolean => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]?.id !== b[i]?.id) return false;
  return true;
};

const unchanged = (plan: Plan, step: Step, before: ReadState, read: Step | undefined): boolean => {
  if (read === undefined) return false;
  const waiters = plan.waiters[step.id];
  const readWaiters = before.waiters[step.id];
  if (read === step && readWaiters === waiters) return true;
  return sameJson(step, read) && sameJson(waiters ?? [], readWaiters ?? []);
};

/**
 * A plan read with its steps in brief, but for those in `full` (read or since written in full). `alone`: the steps
 * in `full` are the only ones read, of the plan's steps `alone` (in order), so the call may change those and append
 * new ones, and nothing else.
 */
export interface BriefRead {
  full: ReadonlySet<string>;
  alone?: readonly string[];
}

/**
 * The header's step order for a plan read without its steps: the order read, and the steps the call appended
 * (undefined when the call changed anything else about the order, which it may not).
 */
const appendedOrder = (plan: Plan, before: ReadState, order: readonly string[]): string[] | undefined => {
  const known = new Set(order);
  const read = new Set(before.steps.map((s) => s.id));
  const added = plan.steps.filter((s) => !known.has(s.id));
  const kept = plan.steps.filter((s) => known.has(s.id));
  if (kept.length !== read.size || !kept.every((s) => read.has(s.id))) return undefined;
  if (!plan.steps.slice(kept.length).every((s) => !known.has(s.id))) return undefined;
  return [...order, ...added.map((s) => s.id)];
};

/**
 * Records plans as a call read them; `whole` names plans stored by the earlier layout, `inBrief` a plan whose steps
 * were read in brief.
 */
export const rememberRead = (
  tx: Tx,
  plans: ReadonlyArray<Plan | undefined>,
  whole: ReadonlySet<string>,
  inBrief?: BriefRead,
): void => {
  let known = reads.get(tx);
  if (!known) reads.set(tx, (known = new Map<string, ReadState>()));
  for (const plan of plans) if (plan) known.set(plan.plan_id, stateOf(plan, whole.has(plan.plan_id), inBrief));
};

/** Whether the call has read the plan (a later read of it must then see the same steps as the first). */
export const wasRead = (tx: Tx, planId: string): boolean => reads.get(tx)?.has(planId) ?? false;

/** A plan's status and working_dir as the call read it; undefined for a plan it did not read (a new one). */
export interface ReadRef {
  status: PlanStatus;
  working_dir: string | undefined;
}

/**
 * Writes the parts of `plan` that differ from what the call read (all of them for a new plan or one stored by the
 * earlier layout, which is upgraded so). Returns the plan as it was read.
 */
export const writePlan = (tx: Tx, plan: Plan): ReadRef | undefined => {
  const before = reads.get(tx)?.get(plan.plan_id);
  const all = !before || before.whole;
  const inOrder = before !== undefined && sameOrder(before.steps, plan.steps);
  let order = before?.inBrief?.alone;
  if (all || !inOrder || !sameHeaderFields(headerFieldsOf(plan), before.fields)) {
    const header = headerOf(plan, plan.updated_at);
    if (before && order) {
      order = appendedOrder(plan, before, order);
      // Never reached by a correct caller: the header names every step, and this call did not read them all.
      if (!order) throw new Error(`${plan.plan_id} was read without its steps; only appending changes its order`);
      header.step_ids = [...order];
    }
    tx.put(docKeys.plan(plan.plan_id), header);
  }
  const briefs: Record<string, string> = {};
  const ranked: Step[] = [];
  plan.steps.forEach((step, i) => {
    const read =
      before &&
      (inOrder ? before.steps[i] : (before.byId ??= new Map(before.steps.map((s) => [s.id, s]))).get(step.id));
    if (!all && unchanged(plan, step, before, read)) return;
    const doc = stepDocOf(plan, step, plan.updated_at);
    // Never reached by a correct caller: a stand-in written as the step would lose everything the brief leaves out.
    if (read && before?.inBrief && !before.inBrief.full.has(step.id))
      throw new Error(`${plan.plan_id}:${step.id} was read in brief, not written`);
    tx.put(docKeys.planStep(plan.plan_id, step.id), doc);
    briefs[step.id] = encodeBrief(step);
    ranked.push(step);
  });
  if (ranked.length > 0) tx.op({ op: 'hset', key: hashKeys.stepBriefs(plan.plan_id), fields: briefs });
  tx.op(...rankOps(plan.plan_id, ranked));
  if (before && !before.whole && !inOrder) {
    const kept = new Set(plan.steps.map((s) => s.id));
    const gone = before.steps.filter((s) => !kept.has(s.id)).map((s) => s.id);
    for (const id of gone) tx.delete(docKeys.planStep(plan.plan_id, id));
    tx.op(...unrankOps(plan.plan_id, gone));
  }
  const inBrief = before?.inBrief && {
    full: new Set([...before.inBrief.full, ...Object.keys(briefs)]),
    ...(order ? { alone: order } : {}),
  };
  rememberRead(tx, [plan], new Set(), inBrief);
  return before && { status: before.status, working_dir: before.working_dir };
};

/**
 * The waiting plans of `waiters`, read without a check, each with only the waiting steps (enough to decide a
 * delivery and to name the plan in its events), in one round trip.
 */
export const peekWaitingPlans = async (tx: Tx, waiters: readonly Waiter[]): Promise<Map<string, Plan | undefined>> => {
  const planIds = [...new Set(waiters.map((w) => w.plan_id))];
  const stepKeys = waiters.map((w) => docKeys.planStep(w.plan_id, w.step_id));
  const raws = await tx.peek([...planIds.map(docKeys.plan), ...stepKeys]);
  const plans = new Map<string, Plan | undefined>();
  planIds.forEach((id, i) => {
    const root = planDocuments.planRoot.decode(docKeys.plan(id), raws[i]);
    if (!root) return plans.set(id, undefined);
    if (root.layout === 'whole') return plans.set(id, root.plan);
    const own = waiters.flatMap((w, j) =>
      w.plan_id === id ? [planDocuments.planStep.decode(stepKeys[j] ?? '', raws[planIds.length + j])] : [],
    );
    return plans.set(id, assemblePlan(root.header, own));
  });
  return plans;
};

/**
 * Makes the commit check a step the call read unchecked, without writing it: a call that relies on the step's state
 * (a dependency registered on a step that has not ended) must conflict with the step's concurrent change.
 */
export const checkStep = (tx: Tx, planId: string, stepId: string): Promise<void> =>
  tx.prefetch({ checked: [docKeys.planStep(planId, stepId)] });
