import type { AgentDoc } from './agent-doc.ts';

export interface RetentionPolicy {
  /** Finished plans an agent keeps: those that finished (seed 004: changed) most recently. */
  kept: number;
  /** Plans removed by one commit at most, so an index that grew before retention existed sheds its backlog in steps. */
  batch: number;
}

/**
 * The finished plans retention removes from an agent, oldest first: every finished plan but the `kept` newest, at
 * most `batch` of them. Newest means latest `changed_at` (the time the index last recorded a change of the plan: its
 * end, for a plan that finished), then latest in the index (it appends). An unfinished plan is never one of them.
 */
export const finishedPlansPastRetention = (agent: AgentDoc, policy: RetentionPolicy): string[] => {
  const finished = agent.plans.map((ref, at) => ({ ref, at })).filter(({ ref }) => ref.finished);
  if (finished.length <= policy.kept) return [];
  const newestFirst = finished.sort((a, b) =>
    a.ref.changed_at === b.ref.changed_at ? b.at - a.at : a.ref.changed_at < b.ref.changed_at ? 1 : -1,
  );
  return newestFirst
    .slice(policy.kept)
    .reverse()
    .slice(0, policy.batch)
    .map(({ ref }) => ref.plan_id);
};

/** The index without the given plans. */
export const withoutPlans = (agent: AgentDoc, planIds: ReadonlySet<string>): AgentDoc => ({
  ...agent,
  plans: agent.plans.filter((p) => !planIds.has(p.plan_id)),
});

/**
 * What a call naming a plan that is not stored is told: the id may be wrong, or the plan finished and retention
 * removed it; either way its events stay in the log for their own retention.
 */
export const missingPlanMessage = (planId: string): string =>
  `Plan ${planId} does not exist in this workspace: the id is wrong, or the plan finished and was removed (each ` +
  'agent keeps only its most recent finished plans). Its history stays in the event log: call getTaskEvents with ' +
  `plan_id "${planId}".`;
