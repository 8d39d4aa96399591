import type { DependencyRef } from '@planhub/shared';

/** A step's node in the workspace dependency graph: the key of its waiters, outstanding set and edges. */
export const stepNode = (planId: string, stepId: string): string => `${planId}:${stepId}`;

/**
 * The node of a dependency on "step `stepId` of agent `agentId`, in whichever of its plans" before any plan of that
 * agent has the step: its waiters wait there until a step of that agent with that id ends. Plan ids are generated
 * (letters, digits, `_` and `-`), so the prefix never collides with a step's node; the parts are encoded because agent and step
 * ids may contain ":" themselves.
 */
export const pendingNode = (agentId: string, stepId: string): string =>
  `any-plan:${encodeURIComponent(agentId)}/${encodeURIComponent(stepId)}`;

export const isPendingNode = (node: string): boolean => node.startsWith('any-plan:');

/** The node a registered dependency waits on: the step's own, or the agent-wide one while the step was unknown. */
export const dependencyNode = (ref: DependencyRef): string =>
  ref.plan_id === undefined ? pendingNode(ref.agent_id, ref.step_id) : stepNode(ref.plan_id, ref.step_id);

/** How a cycle report names a node. */
export const describeNode = (node: string, owners: ReadonlyMap<string, string>): string => {
  if (isPendingNode(node)) {
    const [agent = '', step = ''] = node.slice('any-plan:'.length).split('/').map(decodeURIComponent);
    return `${agent}:${step} (not created yet)`;
  }
  const cut = node.indexOf(':');
  const planId = node.slice(0, cut);
  const stepId = node.slice(cut + 1);
  const owner = owners.get(planId);
  return owner === undefined ? `${stepId} of plan ${planId}` : `${owner}:${stepId} (plan ${planId})`;
};
