import type { EventEnvelope, Plan } from '@planhub/shared';
import { FINISHED_PLAN_STATUSES, eventOf, fail } from '@planhub/shared';
import { requestApproval } from '../../core/plans/plan-lifecycle.ts';
import { decisionWait } from '../../limits/wait-slots.ts';
import { transact } from '../../store/transact.ts';
import type { CallContext, ToolHandlers } from '../context.ts';
import { loadPlan, resolvePlan, savePlan } from '../plan-access.ts';

/** The agent whose plan a decision event decided, read from its typed payload; undefined for other events. */
const decidedFor = (e: EventEnvelope): string | undefined =>
  (eventOf(e, 'plan_approved') ?? eventOf(e, 'plan_rejected'))?.payload.agent_id;

/** How a plan ends, by the type of the event that ends it (core/plans/plan-lifecycle.ts, endPlan). */
const END_OF_EVENT = { plan_completed: 'completed', plan_failed: 'failed', plan_cancelled: 'cancelled' } as const;
type PlanEndEvent = keyof typeof END_OF_EVENT;

/** Matched by type alone: an end whose payload the call could not read must still end its wait. */
const isPlanEnd = (type: string): type is PlanEndEvent => Object.hasOwn(END_OF_EVENT, type);

type Decided = Pick<Plan, 'plan_id' | 'title' | 'status' | 'decision' | 'steps' | 'summary'>;

/** The plan stopped awaiting approval without a decision: it ended (cancelled, in practice), so none will come. */
const endedUndecided = (plan: Decided): boolean =>
  FINISHED_PLAN_STATUSES.has(plan.status) && plan.status !== 'rejected';

/**
 * The refusal a new startPlan on the ended plan answers (upstream's words: it is no longer the agent's active plan),
 * so the waiting call and its retry answer alike; PlanHub's note says what ended it and how to go on.
 */
const refuseEnded = (plan: Decided): never =>
  fail(
    'FAILED_PRECONDITION',
    `No active plan. Create a plan first with createPlan. (Plan ${plan.plan_id} was ${plan.status} while it waited ` +
      `for approval${plan.summary ? ` (${plan.summary})` : ''}, so no decision will come for it. If the work is ` +
      'still to be done, call startPlan for your current plan, or create a new plan with createPlan.)',
  );

/** Upstream's answer to a confirmed plan when the call brought no message of its own. */
const CONFIRMED = 'Plan confirmed. You may proceed with execution.';

/** Upstream's `message or "Plan confirmed. …"`, ended as a sentence so PlanHub's guidance can follow it. */
const sentence = (message: string | undefined): string => {
  const text = message?.trim() ? message : CONFIRMED;
  return /[.!?]\s*$/.test(text) ? text.trimEnd() : `${text}.`;
};

/**
 * Upstream's fields (confirmed, title, the steps) beside PlanHub's status and guidance. A confirmed plan's message is
 * upstream's: the call's own `message` when it brought one, else upstream's sentence; PlanHub's guidance follows.
 */
const answer = (plan: Decided, message: string | undefined) => {
  const base = {
    confirmed: plan.status === 'in_progress',
    plan_id: plan.plan_id,
    title: plan.title,
    status: plan.status,
    steps: plan.steps.map((s) => ({ step_id: s.id, sequence: s.sequence, description: s.description })),
  };
  if (plan.status === 'in_progress')
    return {
      ...base,
      message: `${sentence(message)} Start with the first step and report each outcome with setStepStatus.`,
    };
  if (plan.status === 'rejected')
    return {
      ...base,
      message: 'The user rejected the plan. Ask what to change, then create a new plan.',
      ...(plan.decision?.reason ? { reason: plan.decision.reason } : {}),
    };
  return { ...base, message: 'Waiting for the user to approve or reject the plan.' };
};

/** What ends the wait on a plan: its decision, or its end without one (then none can come). */
const endsWaitOn =
  (planId: string) =>
  (e: EventEnvelope): boolean =>
    e.source_plan_id === planId && (decidedFor(e) !== undefined || isPlanEnd(e.event_type));

/** The plan as the event that ended the wait left it: decided, or ended without a decision. */
const outcomeOf = (plan: Decided, event: EventEnvelope | undefined): Decided => {
  if (event && isPlanEnd(event.event_type)) {
    const summary = eventOf(event, event.event_type)?.payload.summary;
    return { ...plan, status: END_OF_EVENT[event.event_type], ...(summary ? { summary } : {}) };
  }
  const approved = event?.event_type === 'plan_approved';
  const reason = event ? eventOf(event, 'plan_rejected')?.payload.reason : undefined;
  return {
    ...plan,
    status: approved ? 'in_progress' : 'rejected',
    ...(typeof reason === 'string' ? { decision: { by: '', role: '', at: '', reason } } : {}),
  };
};

/**
 * The decision on `plan`, which the call's commit left awaiting approval, or its end without one. Listening starts
 * only now, and the plan is read again after it: a decision or end committed before the listener was in place shows
 * in that read, and one committed later reaches the listener (docs/architecture.md, event delivery).
 * The wait holds one of the agent's wait slots, as a getTaskEvents long-poll does: each is a listener every event of
 * the workspace passes through, and an agent re-sending startPlan would otherwise park them without bound.
 */
const decisionOn = async (ctx: CallContext, plan: Decided): Promise<Decided> => {
  const { caller, services } = ctx;
  const release = services.waitSlots.take(caller, decisionWait(plan.plan_id));
  const wait = services.hub.waitFor(caller.workspace, endsWaitOn(plan.plan_id), { signal: ctx.signal });
  try {
    // Unlike ctx.transact, no request_id: the call's remembered answer (awaiting approval) would stand in for the read.
    const { result: now } = await transact(
      services.store,
      caller.workspace,
      (tx) => loadPlan(tx, plan.plan_id, 'brief'),
      { budget: ctx.budget },
    );
    if (now.status === 'rejected')
      return { ...plan, status: 'rejected', ...(now.decision ? { decision: now.decision } : {}) };
    // Decided and not rejected: approved, and maybe worked on since. The answer is the approval, as its event says.
    if (now.status !== 'awaiting_approval' && now.decision) return { ...plan, status: 'in_progress' };
    // Ended without a decision (cancelled while waiting): none will come, so waiting on would hold the call for ever.
    if (now.status !== 'awaiting_approval')
      return { ...plan, status: now.status, ...(now.summary ? { summary: now.summary } : {}) };
    return outcomeOf(plan, await wait.promise);
  } finally {
    wait.cancel();
    release();
  }
};

/**
 * startPlan answers when the plan is decided, and refuses once it ends undecided (cancelled meanwhile, which a new
 * startPlan on it refuses too). Only a call that will wait listens to the workspace's events, and only once its
 * commit has left the plan awaiting approval: under the auto policy, or with wait=false, the call never makes its
 * node follow the workspace. A retry (same or new connection) simply waits again, or answers the decision already
 * made, so no request log is needed.
 */
export const startPlan: ToolHandlers['startPlan'] = async (ctx, args) => {
  const { caller, services } = ctx;
  const plan = await ctx.transact(async (tx) => {
    // Without plan_id: the current plan, else the latest one, so a retry after a rejection finds the decision.
    // Starting changes no step and answers each step's id, sequence and description: their briefs are enough.
    const mode = args.plan_id === undefined ? 'latest' : 'write';
    const current = await resolvePlan(tx, caller, args, mode, 'startPlan', 'brief');
    const outcome = requestApproval(
      current,
      args.message,
      services.config.approvalPolicy,
      services.now(),
      ctx.requestId,
    );
    if (outcome.events.length > 0) {
      await savePlan(tx, outcome.plan);
      tx.emit(...outcome.events);
    }
    return outcome.plan;
  });
  const noLongWaits = ctx.connection?.noLongWaits;
  if (plan.status === 'awaiting_approval' && noLongWaits)
    return { ...answer(plan, args.message), next: noLongWaits.next };
  if (plan.status !== 'awaiting_approval' || !args.wait) return answer(plan, args.message);
  const outcome = await decisionOn(ctx, plan);
  if (endedUndecided(outcome)) refuseEnded(outcome);
  return answer(outcome, args.message);
};
