import type { DependencyRef, PlanStatus, StepStatus } from '../model.ts';
import { ENDED_STEP_STATUSES, FINISHED_PLAN_STATUSES } from '../model.ts';
import type { EventOf, EventType, TaskEvent } from '../events.ts';
import { OTHER_CHANGE_EVENT_TYPES, compareEventIds } from '../events.ts';
import { progressOf } from '../render/progress.ts';
import type { ToolResult } from '../tools/catalog.ts';
import type { AgentSummary, PlanSummary, StepSummary } from '../tools/workspace-summary.ts';

export type WorkspaceSnapshot = ToolResult<'getWorkspace'>;

const STEP_STATUS_OF = {
  step_started: 'in_progress',
  step_completed: 'completed',
  step_failed: 'failed',
  step_skipped: 'skipped',
  step_blocked: 'blocked',
  step_unblocked: 'pending',
} as const satisfies Partial<Record<EventType, StepStatus>>;

const PLAN_STATUS_OF = {
  plan_approval_requested: 'awaiting_approval',
  plan_started: 'in_progress',
  plan_rejected: 'rejected',
  plan_completed: 'completed',
  plan_failed: 'failed',
  plan_cancelled: 'cancelled',
} as const satisfies Partial<Record<EventType, PlanStatus>>;

/** Events whose effect the model cannot derive from the envelope: the client re-reads the overview. */
const REFRESH: ReadonlySet<EventType> = new Set(OTHER_CHANGE_EVENT_TYPES);
/** A plan that ends changes which plan is its agent's current one: applied at once, then re-read. */
const PLAN_ENDS: ReadonlySet<EventType> = new Set(
  (Object.keys(PLAN_STATUS_OF) as Array<keyof typeof PLAN_STATUS_OF>).filter((type) =>
    FINISHED_PLAN_STATUSES.has(PLAN_STATUS_OF[type]),
  ),
);

type StepEvent = EventOf<keyof typeof STEP_STATUS_OF>;
type PlanStatusEvent = EventOf<keyof typeof PLAN_STATUS_OF | 'plan_approved'>;

/** How many recent events are kept to re-apply over a fresh overview. */
const RECENT = 1_000;

/**
 * The live state a dashboard or `planhub watch` shows: getWorkspace's overview, kept current by applying events.
 * An event the envelope fully describes (a step or plan changing status) is applied at once; anything else asks the
 * caller to re-read the overview (`apply` returns true). A re-read overview may be older than events already
 * applied, so `reset` re-applies the recent events after its `last_event_id`; applying an event twice is harmless.
 * Events come as the typed union, read without zod (the dashboard bundle has none): the SDK hands only events it
 * has checked, and the dashboard trusts the node that served it. A type newer than this code can still arrive
 * there; it matches no case below, so the overview is re-read, which shows its effect whatever it was.
 */
export class WorkspaceModel {
  snapshot: WorkspaceSnapshot | undefined;
  lastEventId: string | undefined;
  private recent: TaskEvent[] = [];

  /** Applies a live event; returns true when the overview should be re-read. Older or repeated events are ignored. */
  apply(event: TaskEvent): boolean {
    if (this.lastEventId !== undefined && compareEventIds(event.event_id, this.lastEventId) <= 0) return false;
    this.lastEventId = event.event_id;
    this.recent.push(event);
    if (this.recent.length > RECENT) this.recent.splice(0, this.recent.length - RECENT);
    return this.snapshot === undefined ? true : applyEvent(this.snapshot, event);
  }

  reset(snapshot: WorkspaceSnapshot): void {
    this.snapshot = snapshot;
    const cursor = snapshot.last_event_id;
    for (const event of this.recent)
      if (cursor === null || compareEventIds(event.event_id, cursor) > 0) applyEvent(snapshot, event);
    // The snapshot holds every event up to its cursor: those must not be applied to it again (an older event
    // applied over a newer state shows it as it was until the next one arrives).
    if (cursor !== null && (this.lastEventId === undefined || compareEventIds(cursor, this.lastEventId) > 0))
      this.lastEventId = cursor;
  }

  agent(agentId: string): AgentSummary | undefined {
    return this.snapshot?.agents.find((a) => a.agent_id === agentId);
  }

  plan(planId: string): PlanSummary | undefined {
    for (const agent of this.snapshot?.agents ?? []) {
      const plan = agent.plans.find((p) => p.plan_id === planId);
      if (plan) return plan;
    }
    return undefined;
  }

  /** The plan a person means by "the agent's plan": its current one, else its most recent. */
  shownPlan(agentId: string): PlanSummary | undefined {
    const agent = this.agent(agentId);
    if (!agent) return undefined;
    return agent.plans.find((p) => p.plan_id === agent.current_plan_id) ?? agent.plans[0];
  }
}

/** Mutates `snapshot` by one event; returns true when the event needs a re-read to be shown fully. */
export const applyEvent = (snapshot: WorkspaceSnapshot, event: TaskEvent): boolean => {
  const type = event.event_type;
  if (REFRESH.has(type)) return true;
  if (PLAN_ENDS.has(type) && isPlanStatusEvent(event)) {
    applyPlanStatus(snapshot, event);
    return true;
  }
  switch (event.event_type) {
    case 'agent_online':
    case 'agent_offline':
      return applyPresence(snapshot, event);
    case 'step_stalled': {
      const step = findPlan(snapshot, event.source_plan_id)?.steps.find((s) => s.id === event.source_step_id);
      if (step) step.stalled = true;
      return false;
    }
    case 'plan_created':
      return findPlan(snapshot, event.source_plan_id) === undefined;
    case 'step_added': {
      const plan = findPlan(snapshot, event.source_plan_id);
      return !plan?.steps.some((s) => s.id === event.source_step_id);
    }
  }
  if (isStepEvent(event)) return applyStepEvent(snapshot, event);
  if (isPlanStatusEvent(event)) return applyPlanStatus(snapshot, event);
  return true;
};

const isStepEvent = (event: TaskEvent): event is StepEvent => Object.hasOwn(STEP_STATUS_OF, event.event_type);
const isPlanStatusEvent = (event: TaskEvent): event is PlanStatusEvent =>
  Object.hasOwn(PLAN_STATUS_OF, event.event_type) || event.event_type === 'plan_approved';

const findPlan = (snapshot: WorkspaceSnapshot, planId: string | null): PlanSummary | undefined => {
  if (planId === null) return undefined;
  for (const agent of snapshot.agents) {
    const plan = agent.plans.find((p) => p.plan_id === planId);
    if (plan) return plan;
  }
  return undefined;
};

const applyStepEvent = (snapshot: WorkspaceSnapshot, event: StepEvent): boolean => {
  const plan = findPlan(snapshot, event.source_plan_id);
  const step = plan?.steps.find((s) => s.id === event.source_step_id);
  if (!plan || !step) return true;
  const status = STEP_STATUS_OF[event.event_type];
  step.status = status;
  delete step.stalled;
  if (status === 'in_progress') step.started_at ??= event.timestamp;
  if (ENDED_STEP_STATUSES.has(status)) step.completed_at = event.timestamp;
  if (event.event_type === 'step_unblocked') step.blocked_by = [];
  else if (event.event_type !== 'step_blocked') {
    const { result, error } = event.payload;
    if (result !== null) step.result = result;
    if (error !== null) step.error = error;
  }
  plan.progress = progressOf(plan.steps);
  plan.updated_at = event.timestamp;
  if (ENDED_STEP_STATUSES.has(status)) resolveWaiters(snapshot, plan, step);
  // A newly blocked step's dependencies are not in the envelope.
  return event.event_type === 'step_blocked';
};

/** An agent connecting or leaving flips at once; one without plans, todos or tasks is not listed, so nothing to do. */
const applyPresence = (snapshot: WorkspaceSnapshot, event: EventOf<'agent_online' | 'agent_offline'>): boolean => {
  const agent = snapshot.agents.find((a) => a.agent_id === event.source_agent);
  if (!agent) return false;
  agent.online = event.event_type === 'agent_online';
  agent.last_seen_at = event.payload.last_seen_at;
  return false;
};

/** Whether two dependency references name the same step (a reference without plan_id matches any plan's). */
export const sameDependency = (a: DependencyRef, b: DependencyRef): boolean =>
  a.agent_id === b.agent_id &&
  a.step_id === b.step_id &&
  (a.plan_id === undefined || b.plan_id === undefined || a.plan_id === b.plan_id);

/**
 * Mirrors the server's resolution: an ended step drops out of every blocked_by naming it, except that of a waiter
 * that ended, or whose plan did (a completed plan leaves steps open). Such a step gave its waits up, and the server
 * keeps its blocked_by as it was then; stripping it here made a live view call such a wait resolved where a reload
 * (the server's data) showed it still listed.
 */
const resolveWaiters = (snapshot: WorkspaceSnapshot, plan: PlanSummary, ended: StepSummary): void => {
  const ref = { agent_id: plan.agent_id, step_id: ended.id, plan_id: plan.plan_id };
  for (const agent of snapshot.agents)
    for (const waiting of agent.plans)
      for (const step of waiting.steps)
        if (
          step.blocked_by?.length &&
          !ENDED_STEP_STATUSES.has(step.status) &&
          !FINISHED_PLAN_STATUSES.has(waiting.status)
        )
          step.blocked_by = step.blocked_by.filter((d) => !sameDependency(d, ref));
};

const applyPlanStatus = (snapshot: WorkspaceSnapshot, event: PlanStatusEvent): boolean => {
  const plan = findPlan(snapshot, event.source_plan_id);
  if (!plan) return true;
  if (event.event_type !== 'plan_approved') plan.status = PLAN_STATUS_OF[event.event_type];
  plan.updated_at = event.timestamp;
  const owner = snapshot.agents.find((a) => a.agent_id === plan.agent_id);
  if (!owner) return true;
  owner.pending_approvals = owner.pending_approvals.filter((p) => p.plan_id !== plan.plan_id);
  if (event.event_type === 'plan_approval_requested') {
    const { message } = event.payload;
    owner.pending_approvals.push({
      plan_id: plan.plan_id,
      agent_id: plan.agent_id,
      title: plan.title,
      message,
      requested_at: event.timestamp,
    });
    if (message !== null) plan.approval_message = message;
  }
  return false;
};
