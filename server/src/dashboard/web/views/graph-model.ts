import type { PlanSummary, StepSummary, WorkspaceSnapshot } from '@planhub/shared';
import { dependencyState, findTarget, openDependencies, statusAsDependency } from './dependency-state.ts';

export interface GraphNode {
  id: string;
  agentId: string;
  planId: string | undefined;
  step: StepSummary | undefined;
  stepId: string;
  /** Still waiting on at least one of its dependencies. */
  waiting: boolean;
}

export interface GraphEdge {
  id: string;
  from: string;
  to: string;
  /** The dependency has not ended yet. */
  open: boolean;
  /** The waiting step ended first: the server no longer waits for this dependency (never open). */
  givenUp: boolean;
}

export interface DependencyGraph {
  agents: string[];
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Changes only when nodes or edges come or go: statuses alone are updated in place, without a new layout. */
  shape: string;
}

/**
 * One node per step of a plan: an agent's plans number their steps alike (step_1, step_2…), so two plans' steps that
 * share an id are two nodes, as they are two entries of the list view. A dependency on a step no shown plan has is
 * keyed by the plan it names, if any.
 */
const nodeId = (agentId: string, planId: string | undefined, stepId: string) =>
  `${agentId}\u0000${planId ?? ''}\u0000${stepId}`;

/** The workspace's cross-agent steps: every step that waits on another's, and every step waited on. */
export const dependencyGraph = (snapshot: WorkspaceSnapshot): DependencyGraph => {
  const nodes = new Map<string, GraphNode>();
  const edges = new Map<string, GraphEdge>();
  const add = (
    agentId: string,
    plan: PlanSummary | undefined,
    stepId: string,
    step: StepSummary | undefined,
    namedPlan = plan?.plan_id,
  ) => {
    const id = nodeId(agentId, namedPlan, stepId);
    if (!nodes.has(id))
      nodes.set(id, {
        id,
        agentId,
        planId: plan?.plan_id,
        // Drawn as its waiters see it: a rejected plan's steps were received as skipped, and their arrows are solid.
        step: step && plan ? { ...step, status: statusAsDependency(step, plan) } : step,
        stepId,
        waiting: !!step && !!plan && openDependencies(step, plan).length > 0,
      });
    return id;
  };
  for (const agent of snapshot.agents)
    for (const plan of agent.plans)
      for (const step of plan.steps) {
        if (!step.depends_on?.length) continue;
        const from = add(agent.agent_id, plan, step.id, step);
        for (const ref of step.depends_on) {
          const target = findTarget(snapshot, ref);
          const to = add(ref.agent_id, target?.plan, ref.step_id, target?.step, target?.plan.plan_id ?? ref.plan_id);
          const state = dependencyState(step, plan, ref);
          const open = state === 'open';
          const givenUp = state === 'given-up';
          // Node ids are unique per plan step, so an edge's is too; a dependency listed twice is drawn once.
          const id = `${from}\u0001${to}`;
          const edge = edges.get(id);
          if (edge) {
            edge.open ||= open;
            edge.givenUp ||= givenUp;
          } else edges.set(id, { id, from, to, open, givenUp });
        }
      }
  const list = [...nodes.values()];
  const lines = [...edges.values()];
  const agents = [...new Set(list.map((n) => n.agentId))];
  return { agents, nodes: list, edges: lines, shape: JSON.stringify([list.map((n) => n.id), lines.map((e) => e.id)]) };
};
