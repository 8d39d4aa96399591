import type { NewEvent, Plan, ToolParsedArgs, Waiter } from '@planhub/shared';
import { fail } from '@planhub/shared';
import type { AnyTarget } from '../../core/dependencies/attach.ts';
import { attachDependencies, endedOutcome, isFuture, stepNode } from '../../core/dependencies/attach.ts';
import { dependencyNode } from '../../core/dependencies/nodes.ts';
import { addStep, appendStep } from '../../core/plans/add-step.ts';
import { tallyOf, totalOf, withAdded } from '../../core/plans/step-tally.ts';
import { clonePlan } from '../../core/plans/plan-factory.ts';
import { stepAnswer } from '../../core/plans/plan-views.ts';
import { findStep, findStepToWait, requireRunning } from '../../core/plans/plan-guards.ts';
import { hashKeys, setKeys } from '../../store/keys.ts';
import type { Tx } from '../../store/transaction.ts';
import type { CallContext, ToolHandlers } from '../context.ts';
import type { Walked } from '../dependency-graph.ts';
import { loadReachableEdges, recordEdges, walkCost } from '../dependency-graph.ts';
import { waitsAcross } from '../dependents.ts';
import { encodeReceived } from '../live-plans.ts';
import { appendTarget, resolveForAppend, resolvePlan, savePlan } from '../plan-access.ts';
import type { DependencyArg } from './dependency-targets.ts';
import { findDependencyTarget, prefetchTargets } from './dependency-targets.ts';
import { noteAwaited } from '../awaited-steps.ts';
import type { WaiterTarget } from '../step-waiters.ts';
import { addWaiters, countWaiters, refuseWaitersPastBound, waiterSet } from '../step-waiters.ts';

const unique = (deps: readonly DependencyArg[]): DependencyArg[] => {
  const seen = new Set<string>();
  return deps.filter((d) => {
    const key = `${d.agent_id}\u0000${d.step_id}\u0000${d.plan_id ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

const stillRunning = (t: AnyTarget) => isFuture(t) || !endedOutcome(t.plan, findStep(t.plan, t.step_id));

const targetNode = (t: AnyTarget) =>
  isFuture(t)
    ? dependencyNode({ agent_id: t.agent_id, step_id: t.step_id, plan_id: t.plan?.plan_id })
    : stepNode(t.plan.plan_id, t.step_id);

/**
 * The waits on other plans' steps go to per-step keys: the target's waiter list, and the waiting step's outstanding
 * set (every open dependency) and received outputs (everything it holds already, so the fan-in's summary names every
 * output).
 */
const registerWaits = async (
  tx: Tx,
  outcome: ReturnType<typeof attachDependencies>,
  limits: { waitersPerPlan: number; pendingWaiters: number },
): Promise<void> => {
  await recordEdges(tx, outcome.newEdges);
  const joined: Array<{ target: WaiterTarget; waiter: Waiter }> = [];
  for (const r of outcome.registrations) {
    addWaiters(tx, r.target, [r.waiter]);
    joined.push({ target: { node: r.target, set: waiterSet(r.plan_id) }, waiter: r.waiter });
  }
  // Bounded in the commit, exactly, however many calls race (refused whole past it: refuseWaitersPastBound).
  const pendingSet = waiterSet(undefined);
  countWaiters(tx, joined, (set) => (set === pendingSet ? limits.pendingWaiters : limits.waitersPerPlan));
  const { plan, step } = outcome;
  if (!waitsAcross(plan, step)) return;
  // Every open dependency, its own plan's too: one set decides when the step is ready, whoever ends last.
  const self = stepNode(plan.plan_id, step.id);
  const open = (step.blocked_by ?? []).map(dependencyNode);
  tx.op({ op: 'sadd', key: setKeys.outstanding(self), members: open });
  if (step.received_outputs)
    tx.op({ op: 'hset', key: hashKeys.received(self), fields: encodeReceived(step.received_outputs) });
};

/** Steps of other running plans waited on before those plans have them: their plans' ends must release them. */
const noteFutureSteps = async (tx: Tx, targets: readonly AnyTarget[], waitingPlanId: string): Promise<void> => {
  const byPlan = new Map<string, string[]>();
  for (const t of targets)
    if (isFuture(t) && t.plan !== undefined && t.plan.plan_id !== waitingPlanId)
      byPlan.set(t.plan.plan_id, [...(byPlan.get(t.plan.plan_id) ?? []), t.step_id]);
  for (const [planId, stepIds] of byPlan) await noteAwaited(tx, planId, stepIds);
};

/**
 * Seed 000's addDependentStep in both forms: `{description, depends_on}` adds a new step that waits;
 * `{step_id, depends_on}` makes an existing step wait (one in progress or ended too, as upstream accepts).
 * Registration, the cycle check, the waiter entries in the target plans and the at-once resolution of already-ended
 * targets are one transaction.
 */
export const addDependentStep: ToolHandlers['addDependentStep'] = async (ctx, args) => {
  // The graph its cycle checks read, over all its attempts, refused or not: charged once it has answered.
  const walked: Walked = { levels: 0, nodes: 0 };
  try {
    return await attachAndRegister(ctx, args, walked);
  } catch (err) {
    return refuseWaitersPastBound(err, ctx.services.config.limits);
  } finally {
    await ctx.chargeWork?.(walkCost(walked));
  }
};

const attachAndRegister = (ctx: CallContext, args: ToolParsedArgs<'addDependentStep'>, walked: Walked) =>
  ctx.transact(async (tx) => {
    const now = ctx.services.now();
    // Appending a step that waits only on other agents reads none of the plan's other steps, as addStep does; a
    // wait on the caller's own steps, an insertion or an existing step may change other steps: the whole plan.
    const appendTo =
      'description' in args &&
      args.after_step_id === undefined &&
      args.depends_on.every((d) => d.agent_id !== ctx.caller.agent_id)
        ? await appendTarget(tx, ctx.caller, args.plan_id)
        : undefined;
    const read =
      appendTo === undefined
        ? { plan: await resolvePlan(tx, ctx.caller, { plan_id: args.plan_id }, 'write', 'addDependentStep') }
        : await resolveForAppend(tx, ctx.caller, appendTo);
    const current = read.plan;
    requireRunning(current);
    // The waiting step is looked up before the targets, as upstream does, so an unknown step_id is named first.
    if (!('description' in args)) findStepToWait(current, args.step_id);
    const deps = unique(args.depends_on);
    await prefetchTargets(tx, deps);
    const targets: AnyTarget[] = [];
    for (const dep of deps) targets.push(await findDependencyTarget(tx, dep));

    let waiting: Plan;
    let stepId: string;
    const events: NewEvent[] = [];
    if ('description' in args) {
      const limit = ctx.services.config.limits.stepsPerPlan;
      const count = read.tally ? totalOf(read.tally) : current.steps.length;
      if (count + 1 > limit)
        fail('RESOURCE_EXHAUSTED', `Plan ${current.plan_id} already has ${count} steps (limit ${limit}).`);
      const input = {
        description: args.description,
        extra: {
          status: targets.some(stillRunning) ? ('blocked' as const) : ('pending' as const),
          ...(args.provides !== undefined ? { provides: args.provides } : {}),
        },
      };
      const added =
        args.after_step_id === undefined
          ? appendStep(current, count, input, now)
          : addStep(current, { ...input, after_step_id: args.after_step_id }, now);
      waiting = added.plan;
      stepId = added.step.id;
      events.push(...added.events);
    } else {
      waiting = clonePlan(current);
      stepId = args.step_id;
      if (args.provides !== undefined) findStep(waiting, stepId).provides = args.provides;
    }

    const edges = await loadReachableEdges(
      tx,
      targets.map(targetNode),
      ctx.services.config.limits.reachableSteps,
      walked,
    );
    const outcome = attachDependencies(waiting, stepId, targets, edges, now);
    await registerWaits(tx, outcome, ctx.services.config.limits);
    await noteFutureSteps(tx, targets, outcome.plan.plan_id);
    await savePlan(tx, outcome.plan);
    tx.emit(...events, ...outcome.events);

    const { step } = outcome;
    const blockedBy = step.blocked_by ?? [];
    const received = step.received_outputs ?? {};
    const ended = outcome.resolvedNow.length;
    // Upstream's count is of the dependencies passed in, duplicates (dropped) included.
    const count = args.depends_on.length;
    const unknown = targets.filter(isFuture).map((t) => `${t.agent_id}:${t.step_id}`);
    const subject =
      'description' in args ? `Step added with ${count} dependencies` : `Added ${count} dependencies to existing step`;
    const reopened = outcome.reopened
      ? `; ${step.id} was ${outcome.reopened} and now waits for them (it cannot be completed until they end)`
      : '';
    const message =
      step.status === 'blocked'
        ? `${subject} (BLOCKED)` +
          reopened +
          (ended > 0 ? `; ${ended} had already ended and their outputs are in received_outputs` : '') +
          (unknown.length > 0
            ? `; ${unknown.join(', ')} do not exist yet and are waited for (they resolve once created and ended, ` +
              'or as skipped if the plan named ends without them; check the ids if no such step is coming)'
            : '') +
          '. It unblocks by itself, exactly once, when the others end: wait for its step_unblocked event' +
          (ctx.connection?.noLongWaits ? ' (waitForEvents returns it)' : '') +
          ', do not poll.'
        : step.status === 'pending'
          ? `${subject}; all had already ended, so the step is ready (pending) with their outputs in ` +
            'received_outputs (step_unblocked announces it as usual).'
          : // A step in progress or ended had nothing to wait for: it keeps its status, and only gains the outputs.
            `${subject}; all had already ended, so ${step.id} keeps its status (${step.status}) with their outputs ` +
            'in received_outputs (step_unblocked announces them as usual).';
    // A plan read without its steps is counted from its tally and the step added (as attached: blocked or not).
    const tally = read.tally ? withAdded(read.tally, step) : tallyOf(outcome.plan.steps);
    return {
      ...stepAnswer(outcome.plan, step, message, tally),
      blocked_by: blockedBy,
      depends_on: step.depends_on ?? [],
      received_outputs: received,
    };
  });
