import type { AgentSummary, PlanSummary, StepSummary } from '@planhub/shared';

export interface Stall {
  agent_id: string;
  plan: PlanSummary;
  step: StepSummary;
  /** The newest of the step's start and its plan's last update. */
  since: string;
}

/**
 * Steps in progress whose plan has not changed for `afterMs`: the newest of the step's start and the plan's last
 * update is the last sign of work the server has. Pure, so getWorkspace and the stall sweep agree.
 */
export const stalledSteps = (
  agents: ReadonlyArray<Pick<AgentSummary, 'agent_id' | 'plans'>>,
  nowMs: number,
  afterMs: number,
): Stall[] => {
  const stalls: Stall[] = [];
  for (const agent of agents)
    for (const plan of agent.plans) {
      if (plan.status !== 'in_progress') continue;
      for (const step of plan.steps) {
        if (step.status !== 'in_progress') continue;
        const since = [step.started_at, plan.updated_at]
          .filter((t) => t !== undefined)
          .sort()
          .at(-1);
        if (since !== undefined && nowMs - Date.parse(since) >= afterMs)
          stalls.push({ agent_id: agent.agent_id, plan, step, since });
      }
    }
  return stalls;
};
