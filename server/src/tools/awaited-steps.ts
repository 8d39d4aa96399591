import type { Plan, Step } from '@planhub/shared';
import { stepNode } from '../core/dependencies/nodes.ts';
import { documents } from '../store/documents/documents.ts';
import { docKeys } from '../store/keys.ts';
import type { Tx } from '../store/transaction.ts';
import { releaseWaiters } from './dependents.ts';
import { loadWaitersOf, releaseWaiterCounts, waiterSet } from './step-waiters.ts';

/**
 * Waits on a step that a running plan does not have yet (`plan_id` named: the owner may still add it). The plan's
 * header is read for them, not written, so the plan's end could not tell them from nothing: each is noted here, in
 * the plan's `awaited:` document, and the end releases them (a finished plan gets no more steps).
 *
 * Both sides read the document checked: a registration racing the plan's end either commits first (the end re-runs
 * and releases it) or finds the plan finished when it re-runs (and is refused, as a wait on a finished plan's missing
 * step always is).
 */
export const noteAwaited = async (tx: Tx, planId: string, stepIds: readonly string[]): Promise<void> => {
  if (stepIds.length === 0) return;
  const known = (await tx.read(documents.awaitedSteps, planId))?.step_ids ?? [];
  const added = stepIds.filter((id, i) => !known.includes(id) && stepIds.indexOf(id) === i);
  if (added.length > 0) tx.put(docKeys.awaitedSteps(planId), { step_ids: [...known, ...added] });
};

/**
 * In the commit that ends `plan` (completed, failed, cancelled or rejected): every wait on a step it never got
 * receives `skipped`, as a wait on an open step of a finished plan does, and the note goes. `plan.steps` must hold
 * every step (in full or in brief): an awaited step the plan got meanwhile settles its waiters by its own end.
 */
export const releaseAwaited = async (tx: Tx, plan: Plan, now: string): Promise<void> => {
  const note = await tx.read(documents.awaitedSteps, plan.plan_id);
  if (!note) return;
  tx.delete(docKeys.awaitedSteps(plan.plan_id));
  const present = new Set(plan.steps.map((s) => s.id));
  const missing = note.step_ids.filter((id) => !present.has(id));
  const waiters = await loadWaitersOf(
    tx,
    missing.map((id) => stepNode(plan.plan_id, id)),
  );
  for (const [i, id] of missing.entries()) {
    const list = waiters[i] ?? [];
    releaseWaiterCounts(tx, { node: stepNode(plan.plan_id, id), set: waiterSet(plan.plan_id) }, list);
    // The plan's own steps wait through its `waiters`, and end with it: only other plans' steps are told.
    await releaseWaiters(tx, plan, neverAdded(plan, id), list, now, (w) => w.plan_id !== plan.plan_id);
  }
};

/** What a step the plan never got hands its waiters: skipped, saying why. */
const neverAdded = (plan: Plan, id: string): Step => ({
  id,
  step_id: id,
  sequence: 0,
  description: '',
  status: 'skipped',
  result: `plan ${plan.status} without a step ${id}`,
});
