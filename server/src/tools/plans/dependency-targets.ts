import type { DependencyDisplay, Plan } from '@planhub/shared';
import { FINISHED_PLAN_STATUSES, fail } from '@planhub/shared';
import { type AgentDoc, currentPlanId } from '../../core/agents/agent-doc.ts';
import { missingPlanMessage } from '../../core/agents/retention.ts';
import type { AnyTarget } from '../../core/dependencies/attach.ts';
import { readPlan } from '../live-plans.ts';
import { planDocuments } from '../../store/documents/plan-documents.ts';
import type { Tx } from '../../store/transaction.ts';
import { loadAgent } from '../plan-access.ts';
import { checkStep, wasRead } from '../plan-repository.ts';
import { readOneStep, stepReadKeys } from '../plan-step-read.ts';
import { docKeys } from '../../store/keys.ts';

export interface DependencyArg extends DependencyDisplayArg {
  agent_id: string;
  step_id: string;
  plan_id?: string | undefined;
}

interface DependencyDisplayArg {
  agent_name?: string | undefined;
  step_sequence?: number | undefined;
  step_description?: string | undefined;
}

/** The display fields the caller gave, without the absent ones (a stored dependency holds no undefined). */
const displayOf = (dep: DependencyDisplayArg): DependencyDisplay | undefined => {
  const display: DependencyDisplay = {};
  if (dep.agent_name !== undefined) display.agent_name = dep.agent_name;
  if (dep.step_sequence !== undefined) display.step_sequence = dep.step_sequence;
  if (dep.step_description !== undefined) display.step_description = dep.step_description;
  return Object.keys(display).length > 0 ? display : undefined;
};

/** Plans are loaded a few at a time: the newest usually hold the step, and an agent's history can be long. */
const BATCH = 8;

const stepList = (plan: Plan) => plan.steps.map((s) => s.id).join(', ') || 'none';

/**
 * A named target plan with only its target step (the others decide nothing here), so waiting on a step of a long
 * plan does not read the others; a plan this call already read is read as before.
 */
const readTargetPlan = (tx: Tx, planId: string, stepId: string) =>
  wasRead(tx, planId) ? readPlan(tx, planId) : readOneStep(tx, planId, stepId);

const inPlan = async (tx: Tx, dep: DependencyArg & { plan_id: string }): Promise<AnyTarget> => {
  const plan =
    (await readTargetPlan(tx, dep.plan_id, dep.step_id)) ??
    fail(
      'NOT_FOUND',
      `${missingPlanMessage(dep.plan_id)} Check the plan_id of ${dep.agent_id}, or omit plan_id to wait on ` +
        `${dep.agent_id}'s step in its current or latest plan that has it.`,
    );
  if (plan.agent_id !== dep.agent_id)
    fail('INVALID_ARGUMENT', `Plan ${plan.plan_id} belongs to agent ${plan.agent_id}, not ${dep.agent_id}.`);
  if (plan.steps.some((s) => s.id === dep.step_id)) return { plan, step_id: dep.step_id };
  // A step its owner may still add: wait for it, unless the plan is over and can get no more steps.
  if (FINISHED_PLAN_STATUSES.has(plan.status))
    fail(
      'NOT_FOUND',
      `${dep.step_id} does not exist in plan ${plan.plan_id} of ${dep.agent_id}, which is ${plan.status} and gets no ` +
        `more steps; its steps are ${stepList(plan)}.`,
    );
  return { future: true, agent_id: dep.agent_id, step_id: dep.step_id, plan };
};

/**
 * Reads what `findDependencyTarget` reads first for each of `deps`, all in one round trip (checked, as it reads
 * them): a named plan's header and target step, else the agent's index, then the headers of the plans the step is
 * looked for in first, then the step in the one that has it. A step that waits on K subagents then costs at most
 * three round trips for its targets instead of K or 2K one after the other.
 */
export const prefetchTargets = async (tx: Tx, deps: readonly DependencyArg[]): Promise<void> => {
  await tx.prefetch({
    checked: deps.flatMap((d) =>
      d.plan_id !== undefined ? stepReadKeys(d.plan_id, d.step_id) : [docKeys.agent(d.agent_id)],
    ),
  });
  const unnamed = deps.filter((d) => d.plan_id === undefined);
  if (unnamed.length === 0) return;
  const firstPlans = await Promise.all(
    unnamed.map(async (d) => searchOrder(await loadAgent(tx, d.agent_id)).slice(0, BATCH)),
  );
  await tx.prefetch({ checked: firstPlans.flat().map(docKeys.plan) });
  const holders = await Promise.all(unnamed.map((d, i) => planHolding(tx, firstPlans[i] ?? [], d.step_id)));
  await tx.prefetch({
    checked: unnamed.flatMap((d, i) => {
      const planId = holders[i];
      return planId === undefined || wasRead(tx, planId) ? [] : stepReadKeys(planId, d.step_id);
    }),
  });
};

/** The plans a step named without plan_id is looked for in, in order: the agent's current one, then newest first. */
const searchOrder = (agent: AgentDoc): string[] => {
  const current = currentPlanId(agent);
  return [
    ...(current !== undefined ? [current] : []),
    ...agent.plans
      .map((p) => p.plan_id)
      .filter((id) => id !== current)
      .reverse(),
  ];
};

/**
 * Finds the plan a dependency points at: the given plan_id, else the agent's current plan when it has the step, else
 * its most recent plan that has it. A step that does not exist yet (an agent just spawned, a plan not created yet)
 * is a future target: the dependency waits for it. Everything read here is read through the transaction, so a plan
 * or step created meanwhile re-runs the call, which then finds it.
 */
export const findDependencyTarget = async (tx: Tx, dep: DependencyArg): Promise<AnyTarget> => {
  const located = await locateTarget(tx, dep);
  const display = displayOf(dep);
  const target = display ? { ...located, display } : located;
  // A plan's steps are read unchecked; an existing target's must be checked, so its completion racing this
  // registration conflicts with it (else the completion would not see the new waiter and the wake-up would be lost).
  // A future target is covered by the plan header or agent index read, which its creation writes.
  if (!('future' in target)) await checkStep(tx, target.plan.plan_id, target.step_id);
  return target;
};

const locateTarget = async (tx: Tx, dep: DependencyArg): Promise<AnyTarget> => {
  if (dep.plan_id !== undefined) return inPlan(tx, { ...dep, plan_id: dep.plan_id });
  const future: AnyTarget = { future: true, agent_id: dep.agent_id, step_id: dep.step_id };
  const order = searchOrder(await loadAgent(tx, dep.agent_id));
  for (let i = 0; i < order.length; i += BATCH) {
    const planId = await planHolding(tx, order.slice(i, i + BATCH), dep.step_id);
    const plan = planId === undefined ? undefined : await readTargetPlan(tx, planId, dep.step_id);
    if (plan) return { plan, step_id: dep.step_id };
  }
  return future;
};

/**
 * The first of `planIds` that has the step `stepId`, from their headers alone (a header lists its steps): a long
 * plan's other steps are never read to find it. Read checked, so a step added meanwhile re-runs the call.
 */
const planHolding = async (tx: Tx, planIds: readonly string[], stepId: string): Promise<string | undefined> => {
  const roots = await tx.readMany(
    planDocuments.planRoot,
    planIds.map((id) => [id]),
  );
  const index = roots.findIndex((root) =>
    root?.layout === 'whole' ? root.plan.steps.some((s) => s.id === stepId) : root?.header.step_ids.includes(stepId),
  );
  return index < 0 ? undefined : planIds[index];
};
