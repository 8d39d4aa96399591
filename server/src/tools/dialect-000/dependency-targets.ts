import type { Plan } from '@planhub/shared';
import { fail } from '@planhub/shared';
import { currentPlanId } from '../../core/agents/agent-doc.ts';
import type { DependencyTarget } from '../../core/dependencies/attach.ts';
import { readPlan, readPlans } from '../live-plans.ts';
import type { Tx } from '../../store/transaction.ts';
import { loadAgent } from '../plan-access.ts';
import { checkStep } from '../plan-repository.ts';

export interface DependencyArg {
  agent_id: string;
  step_id: string;
  plan_id?: string | undefined;
}

/** Plans are loaded a few at a time: the newest usually hold the step, and an agent's history can be long. */
const BATCH = 8;

const stepList = (plan: Plan) => plan.steps.map((s) => s.id).join(', ') || 'none';

const inPlan = async (tx: Tx, dep: DependencyArg & { plan_id: string }): Promise<DependencyTarget> => {
  const plan =
    (await readPlan(tx, dep.plan_id)) ??
    fail('NOT_FOUND', `Plan ${dep.plan_id} does not exist in this workspace; check the plan_id of ${dep.agent_id}.`);
  if (plan.agent_id !== dep.agent_id)
    fail('INVALID_ARGUMENT', `Plan ${plan.plan_id} belongs to agent ${plan.agent_id}, not ${dep.agent_id}.`);
  if (!plan.steps.some((s) => s.id === dep.step_id))
    fail(
      'NOT_FOUND',
      `${dep.step_id} does not exist in plan ${plan.plan_id} of ${dep.agent_id}; its steps are ${stepList(plan)}.`,
    );
  return { plan, step_id: dep.step_id };
};

/**
 * Finds the plan a dependency points at: the given plan_id, else the agent's current plan when it has the step, else
 * its most recent plan that has it. Nothing is guessed: no match is NOT_FOUND with what to do instead.
 */
export const findDependencyTarget = async (tx: Tx, dep: DependencyArg): Promise<DependencyTarget> => {
  const target = await locateTarget(tx, dep);
  // A plan's steps are read unchecked; the target's must be checked, so its completion racing this registration
  // conflicts with it (else the completion would not see the new waiter and the wake-up would be lost).
  await checkStep(tx, target.plan.plan_id, target.step_id);
  return target;
};

const locateTarget = async (tx: Tx, dep: DependencyArg): Promise<DependencyTarget> => {
  if (dep.plan_id !== undefined) return inPlan(tx, { ...dep, plan_id: dep.plan_id });
  const agent = await loadAgent(tx, dep.agent_id);
  if (agent.plans.length === 0)
    return fail(
      'NOT_FOUND',
      `Agent ${dep.agent_id} has no plan in this workspace yet, so ${dep.agent_id}:${dep.step_id} cannot be found. ` +
        'Subscribe to its plan_created event (subscribeToTasks) and add the dependency once its plan exists.',
    );
  const current = currentPlanId(agent);
  const order = [
    ...(current !== undefined ? [current] : []),
    ...agent.plans
      .map((p) => p.plan_id)
      .filter((id) => id !== current)
      .reverse(),
  ];
  let newest: Plan | undefined;
  for (let i = 0; i < order.length; i += BATCH) {
    const plans = await readPlans(tx, order.slice(i, i + BATCH));
    for (const plan of plans) {
      if (!plan) continue;
      newest ??= plan;
      if (plan.steps.some((s) => s.id === dep.step_id)) return { plan, step_id: dep.step_id };
    }
  }
  return fail(
    'NOT_FOUND',
    `No plan of agent ${dep.agent_id} has a step ${dep.step_id}` +
      (newest ? `; its ${current ? 'current' : 'latest'} plan ${newest.plan_id} has ${stepList(newest)}` : '') +
      '. Use the step ids from its plan_created or step_added events, or pass plan_id.',
  );
};
