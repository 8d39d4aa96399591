import type { Dialect, Plan } from '@planhub/shared';
import { FINISHED_PLAN_STATUSES, folderOf } from '@planhub/shared';

/** Per-agent index of plans, newest last; the plans themselves are separate documents. */
export interface AgentPlanRef {
  plan_id: string;
  dialect: Dialect;
  finished: boolean;
  working_dir?: string;
  created_at: string;
  changed_at: string;
}

export interface AgentDoc {
  agent_id: string;
  plans: AgentPlanRef[];
}

export const emptyAgent = (agentId: string): AgentDoc => ({ agent_id: agentId, plans: [] });

/** The agent's current plan: its most recent plan that has not finished (docs/dialects.md, core model). */
export const currentPlanId = (agent: AgentDoc): string | undefined => agent.plans.findLast((p) => !p.finished)?.plan_id;

/** The current plan, else the most recent one: what reads default to. */
export const defaultPlanId = (agent: AgentDoc): string | undefined =>
  currentPlanId(agent) ?? agent.plans.at(-1)?.plan_id;

/** The plan changed most recently, optionally within one working_dir (seed 004's get_plan). */
export const lastChangedPlanId = (agent: AgentDoc, workingDir?: string): string | undefined =>
  agent.plans
    // A working_dir stored before round 30 as written ("/srv/repo/") is compared as the folder it names.
    .filter((p) => workingDir === undefined || folderOf(p.working_dir ?? '.') === workingDir)
    .reduce<AgentPlanRef | undefined>((best, p) => (!best || p.changed_at >= best.changed_at ? p : best), undefined)
    ?.plan_id;

/** Records a plan's latest state in the index (a new plan is appended). */
export const touchPlan = (agent: AgentDoc, plan: Plan): AgentDoc => {
  const ref: AgentPlanRef = {
    plan_id: plan.plan_id,
    dialect: plan.dialect,
    finished: FINISHED_PLAN_STATUSES.has(plan.status),
    created_at: plan.created_at,
    changed_at: plan.updated_at,
    ...(plan.working_dir !== undefined ? { working_dir: plan.working_dir } : {}),
  };
  const known = agent.plans.some((p) => p.plan_id === plan.plan_id);
  return {
    ...agent,
    plans: known ? agent.plans.map((p) => (p.plan_id === plan.plan_id ? ref : p)) : [...agent.plans, ref],
  };
};
