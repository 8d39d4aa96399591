/** The seed-000 tools that act on the caller's current plan when no plan_id names one. */
export type CurrentPlanTool =
  | 'startPlan'
  | 'setStepStatus'
  | 'getPlanStatus'
  | 'completePlan'
  | 'addStep'
  | 'addDependentStep'
  | 'completeStepWithOutput'
  | 'getBlockedSteps';

const CREATE_FIRST = 'Create a plan first with createPlan.';

/**
 * Upstream's own words when a tool finds no current plan (hosts match on "No active plan" and "No plan found"). It
 * names the agent in two of them: getPlanStatus for every agent but its default one, "main", and setStepStatus always.
 */
const upstreamText = (tool: CurrentPlanTool, agentId: string): string => {
  switch (tool) {
    case 'getPlanStatus':
      return `No plan found for this agent${agentId === 'main' ? '' : ` (agent: ${agentId})`}. ${CREATE_FIRST}`;
    case 'getBlockedSteps':
      return `No plan found. ${CREATE_FIRST}`;
    case 'setStepStatus':
      return `No active plan. ${CREATE_FIRST} (agent=${agentId})`;
    default:
      return `No active plan. ${CREATE_FIRST}`;
  }
};

/**
 * The refusal of `tool` when the caller has no current plan: upstream's text first, then where its last plan is (a
 * plan that ended stays readable by id, so a model looking for its result is not sent to create a new one).
 */
export const noCurrentPlanMessage = (tool: CurrentPlanTool, agentId: string, lastPlanId?: string): string =>
  upstreamText(tool, agentId) +
  (lastPlanId === undefined
    ? ''
    : ` Your last plan, ${lastPlanId}, has ended; read it with getPlanStatus(plan_id="${lastPlanId}").`);
