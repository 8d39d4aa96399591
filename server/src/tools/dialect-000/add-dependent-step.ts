import type { NewEvent, Plan } from '@planhub/shared';
import { fail } from '@planhub/shared';
import type { DependencyTarget } from '../../core/dependencies/attach.ts';
import { attachDependencies, endedOutcome } from '../../core/dependencies/attach.ts';
import { addStep } from '../../core/plans/add-step.ts';
import { clonePlan } from '../../core/plans/plan-factory.ts';
import { stepAnswer } from '../../core/plans/plan-views.ts';
import { findStep, requireRunning } from '../../core/plans/plan-guards.ts';
import { docKeys } from '../../store/keys.ts';
import type { ToolHandlers } from '../context.ts';
import { loadEdges, saveEdges } from '../dependency-graph-doc.ts';
import { resolvePlan, savePlan } from '../plan-access.ts';
import type { DependencyArg } from './dependency-targets.ts';
import { findDependencyTarget } from './dependency-targets.ts';

const unique = (deps: readonly DependencyArg[]): DependencyArg[] => {
  const seen = new Set<string>();
  return deps.filter((d) => {
    const key = `${d.agent_id}\u0000${d.step_id}\u0000${d.plan_id ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

const stillRunning = (t: DependencyTarget) => !endedOutcome(t.plan, findStep(t.plan, t.step_id));

/**
 * Seed 000's addDependentStep in both forms: `{description, depends_on}` adds a new step that waits;
 * `{step_id, depends_on}` makes an existing pending (or blocked) step wait. Registration, the cycle check, the
 * waiter entries in the target plans and the at-once resolution of already-ended targets are one transaction.
 */
export const addDependentStep: ToolHandlers['addDependentStep'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const now = ctx.services.now();
    const current = await resolvePlan(tx, ctx.caller, { plan_id: args.plan_id }, 'write');
    requireRunning(current);
    const deps = unique(args.depends_on);
    const targets: DependencyTarget[] = [];
    for (const dep of deps) targets.push(await findDependencyTarget(tx, dep));

    let waiting: Plan;
    let stepId: string;
    const events: NewEvent[] = [];
    if ('description' in args) {
      const limit = ctx.services.config.limits.stepsPerPlan;
      if (current.steps.length + 1 > limit)
        fail(
          'RESOURCE_EXHAUSTED',
          `Plan ${current.plan_id} already has ${current.steps.length} steps (limit ${limit}).`,
        );
      const added = addStep(
        current,
        {
          description: args.description,
          after_step_id: args.after_step_id,
          extra: {
            status: targets.some(stillRunning) ? 'blocked' : 'pending',
            ...(args.provides !== undefined ? { provides: args.provides } : {}),
          },
        },
        now,
      );
      waiting = added.plan;
      stepId = added.step.id;
      events.push(...added.events);
    } else {
      waiting = clonePlan(current);
      stepId = findStep(waiting, args.step_id).id;
      if (args.provides !== undefined) findStep(waiting, stepId).provides = args.provides;
    }

    const edges = await loadEdges(tx);
    const outcome = attachDependencies(waiting, stepId, targets, edges, now);
    saveEdges(tx, edges, outcome.edges);
    for (const plan of outcome.targets) tx.put(docKeys.plan(plan.plan_id), plan);
    await savePlan(tx, outcome.plan);
    tx.emit(...events, ...outcome.events);

    const { step } = outcome;
    const blockedBy = step.blocked_by ?? [];
    const received = step.received_outputs ?? {};
    const ended = outcome.resolvedNow.length;
    const count = deps.length;
    const subject =
      'description' in args ? `Step added with ${count} dependencies` : `Added ${count} dependencies to existing step`;
    const message =
      step.status === 'blocked'
        ? `${subject} (BLOCKED)` +
          (ended > 0 ? `; ${ended} had already ended and their outputs are in received_outputs` : '') +
          '. It unblocks by itself, exactly once, when the others end: wait for its step_unblocked event, do not poll.'
        : `${subject}; all had already ended, so the step is ready (pending) with their outputs in received_outputs.`;
    return {
      ...stepAnswer(outcome.plan, step, message),
      blocked_by: blockedBy,
      depends_on: step.depends_on ?? [],
      received_outputs: received,
    };
  });
