import type { PendingApproval, Plan, PlanSummary, StepSummary } from '@planhub/shared';
import type { AgentDoc } from '../agents/agent-doc.ts';
import { currentPlanId } from '../agents/agent-doc.ts';
import { planHeader } from '../plans/plan-views.ts';

/** The index of every agent that has used a workspace: getWorkspace's starting point. */
export interface AgentIndexDoc {
  agents: string[];
}

export const withAgent = (index: AgentIndexDoc | undefined, agentId: string): AgentIndexDoc | undefined =>
  index?.agents.includes(agentId) ? undefined : { agents: [...(index?.agents ?? []), agentId] };

/**
 * Which plans of an agent the overview shows, newest first: every unfinished plan (they are bounded by the
 * plans-per-agent limit) and the most recent finished ones, up to `finishedLimit`.
 */
export const overviewPlanIds = (agent: AgentDoc, finishedLimit: number): string[] => {
  const newestFirst = [...agent.plans].reverse();
  const open = newestFirst.filter((p) => !p.finished);
  const finished = newestFirst.filter((p) => p.finished).slice(0, finishedLimit);
  const keep = new Set([...open, ...finished].map((p) => p.plan_id));
  return newestFirst.filter((p) => keep.has(p.plan_id)).map((p) => p.plan_id);
};

const stepSummary = (step: Plan['steps'][number]): StepSummary => ({
  id: step.id,
  step_id: step.id,
  sequence: step.sequence,
  description: step.description,
  status: step.status,
  ...(step.result !== undefined ? { result: step.result } : {}),
  ...(step.error !== undefined ? { error: step.error } : {}),
  ...(step.provides !== undefined ? { provides: step.provides } : {}),
  ...(step.depends_on !== undefined ? { depends_on: step.depends_on } : {}),
  ...(step.blocked_by !== undefined ? { blocked_by: step.blocked_by } : {}),
  ...(step.started_at !== undefined ? { started_at: step.started_at } : {}),
  ...(step.completed_at !== undefined ? { completed_at: step.completed_at } : {}),
});

export const planSummary = (plan: Plan): PlanSummary => ({
  ...planHeader(plan),
  ...(plan.approval_message !== undefined ? { approval_message: plan.approval_message } : {}),
  ...(plan.summary !== undefined ? { summary: plan.summary } : {}),
  steps: plan.steps.map(stepSummary),
});

export const pendingApproval = (plan: Plan): PendingApproval | undefined =>
  plan.status === 'awaiting_approval'
    ? {
        plan_id: plan.plan_id,
        agent_id: plan.agent_id,
        title: plan.title,
        message: plan.approval_message ?? null,
        requested_at: plan.updated_at,
      }
    : undefined;

export const currentPlanOf = (agent: AgentDoc): string | null => currentPlanId(agent) ?? null;
