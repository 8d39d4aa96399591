import { currentPlanId } from '../../core/agents/agent-doc.ts';
import { stepNode } from '../../core/dependencies/attach.ts';
import { pendingNode } from '../../core/dependencies/nodes.ts';
import { stepMessage } from '../../core/plans/instruction.ts';
import { stepAnswer } from '../../core/plans/plan-views.ts';
import type { StepChange } from '../../core/plans/step-status.ts';
import { changeStepStatus } from '../../core/plans/step-status.ts';
import { tallyOf } from '../../core/plans/step-tally.ts';
import { docKeys } from '../../store/keys.ts';
import type { Store } from '../../store/store.ts';
import type { Tx } from '../../store/transaction.ts';
import type { CallContext } from '../context.ts';
import type { Settled } from '../dependents.ts';
import { isWaiter, settleDependents } from '../dependents.ts';
import { loadAgent, resolvePlan, resolveStepChange, savePlan } from '../plan-access.ts';
import { stepReadKeys } from '../plan-step-read.ts';
import { tallyRead } from '../step-ranks.ts';
import { waiterReadKeys } from '../step-waiters.ts';
import { currentPlanHint } from './current-plan-hint.ts';

const ENDS = new Set<StepChange['status']>(['completed', 'failed', 'skipped']);

/**
 * Everything the change reads, in one round trip (the plan's steps by status with it, step-ranks.ts): the plan's
 * header and the step, the owner's index when no plan_id names the plan, and, when the step ends, who waits on it. Without a
 * plan_id the plan is guessed from what the index named last time on this node; a wrong guess costs a second one.
 */
const prefetch = async (tx: Tx, store: Store, agentId: string, planId: string | undefined, change: StepChange) => {
  const guess = planId ?? currentPlanHint.get(store, tx.workspace, agentId);
  // What the change reads of plan `target`: the header, the step and its ranks, and when the step ends who waits on
  // it (by plan, and by agent and step id: registered before this plan had the step), built once per plan.
  const readsOf = (target: string) => {
    const waiters = ENDS.has(change.status)
      ? waiterReadKeys(stepNode(target, change.step_id), pendingNode(agentId, change.step_id))
      : undefined;
    return {
      checked: [...stepReadKeys(target, change.step_id), ...(waiters?.docs ?? [])],
      hashes: waiters?.hashes ?? [],
      ranges: [tallyRead(target)],
      follow: waiters?.follow ?? [],
    };
  };
  const index = planId === undefined ? [docKeys.agent(agentId)] : [];
  const first = guess === undefined ? undefined : readsOf(guess);
  await tx.prefetch({ ...first, checked: [...index, ...(first?.checked ?? [])] });
  if (planId !== undefined) return planId;
  const current = currentPlanId(await loadAgent(tx, agentId));
  currentPlanHint.set(store, tx.workspace, agentId, current);
  if (current !== undefined && current !== guess) {
    await tx.prefetch(readsOf(current));
  }
  return current;
};

/** setStepStatus and completeStepWithOutput: the step changes, and when it ends its dependents settle atomically. */
export const applyStepChange = async (
  ctx: CallContext,
  tool: 'setStepStatus' | 'completeStepWithOutput',
  planId: string | undefined,
  change: StepChange,
) => {
  const answer = await ctx.transact(async (tx) => {
    const now = ctx.services.now();
    const target = await prefetch(tx, ctx.services.store, ctx.caller.agent_id, planId, change);
    const read =
      target === undefined
        ? { plan: await resolvePlan(tx, ctx.caller, {}, 'write', tool) }
        : await resolveStepChange(tx, ctx.caller, target, change.step_id);
    const outcome = changeStepStatus(read.plan, change, now, read.tally);
    tx.emit(...outcome.events);
    let settled: Settled = { now: [], pending: [] };
    if (outcome.ended) settled = await settleDependents(tx, outcome.plan, outcome.step, now);
    if (outcome.events.length > 0) await savePlan(tx, outcome.plan);
    const step = outcome.plan.steps.find((s) => s.id === change.step_id) ?? outcome.step;
    // Same-plan steps this change unblocked are counted anew (their plan was read whole).
    const tally = settled.now.length > 0 ? tallyOf(outcome.plan.steps) : outcome.tally;
    // Added to the fresh answer rather than spread into a copy: spreading objects of many shapes takes V8's slow
    // path, which made such copies a few µs each on the hottest path there is.
    return Object.assign(stepAnswer(outcome.plan, step, stepMessage(step), tally), {
      instruction: outcome.instruction,
      ...(outcome.warning ? { warning: outcome.warning } : {}),
      unblocked: [...settled.now, ...settled.pending] as unknown[],
    });
  });
  // The commit's outcome has put each waiter a fan-in unblocked in its place, and null where it did not fire
  // (Tx.completeAnswer, or the request log's text on a replay). The answer is this call's own top-level object (a
  // copy where a waiter was put in, or decoded from the request log), so it is changed in place.
  return Object.assign(answer, { unblocked: answer.unblocked.filter(isWaiter) });
};
