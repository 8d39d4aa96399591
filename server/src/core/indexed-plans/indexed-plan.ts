import type { NewEvent, Plan, IndexedPlanStatus, Step } from '@planhub/shared';
import { ENDED_STEP_STATUSES, FINISHED_PLAN_STATUSES, fail, progressOf } from '@planhub/shared';
import type { AgentDoc } from '../agents/agent-doc.ts';
import { newPlan } from '../plans/plan-factory.ts';
import { planEvent } from '../plans/plan-events.ts';
import { endPlan, stepList } from '../plans/plan-lifecycle.ts';

export interface CreateIndexedPlanInput {
  plan_id: string;
  workspace: string;
  agent_id: string;
  title: string;
  steps: ReadonlyArray<{ description: string; status?: IndexedPlanStatus | undefined; notes?: string | undefined }>;
  working_dir?: string | undefined;
  now: string;
}

/** Seed 004 has no approval step: its plans are created running, so every other dialect sees them in_progress. */
export const createIndexedPlan = (input: CreateIndexedPlanInput): { plan: Plan; events: NewEvent[] } => {
  const plan = newPlan({
    plan_id: input.plan_id,
    workspace: input.workspace,
    agent_id: input.agent_id,
    title: input.title,
    dialect: '004',
    steps: input.steps.map((s) => ({
      description: s.description,
      ...(s.status !== undefined ? { status: s.status } : {}),
      ...(s.notes !== undefined ? { notes: s.notes } : {}),
    })),
    now: input.now,
    ...(input.working_dir !== undefined ? { working_dir: input.working_dir } : {}),
  });
  plan.status = 'in_progress';
  plan.started_at = input.now;
  for (const step of plan.steps) {
    if (step.status === 'in_progress') step.started_at = input.now;
    if (ENDED_STEP_STATUSES.has(step.status)) step.completed_at = input.now;
  }
  const events = [
    planEvent(
      plan,
      'plan_created',
      null,
      {
        steps: stepList(plan).map((s, i) => ({ ...s, index: i, status: plan.steps[i]?.status ?? 'pending' })),
        dialect: '004',
        working_dir: plan.working_dir ?? null,
      },
      input.now,
    ),
    planEvent(plan, 'plan_started', null, { message: null, approval: 'not required (seed 004)' }, input.now),
  ];
  // A plan recorded with every step already done is finished work, not a running plan.
  if (!allEnded(plan)) return { plan, events };
  const finished = endPlan(plan, 'completed', undefined, input.now);
  return { plan: finished.plan, events: [...events, ...finished.events] };
};

/** Every step completed or skipped (a failed step, set through another dialect, leaves the decision to the agent). */
const allEnded = (plan: Plan): boolean =>
  plan.steps.length > 0 && plan.steps.every((s) => s.status === 'completed' || s.status === 'skipped');

export const planNotFound = (planId: string): never => fail('NOT_FOUND', `Plan not found: ${planId}`);

/** The step at a zero-based index, with the seed's range message (and a sane one for a plan without steps). */
export const stepAt = (plan: Plan, index: number): Step => {
  if (plan.steps.length === 0)
    fail(
      'INVALID_ARGUMENT',
      `Plan ${plan.plan_id} has no steps, so there is no step index ${index}. Create a plan with steps using create_plan.`,
    );
  return (
    (index >= 0 ? plan.steps[index] : undefined) ??
    fail('INVALID_ARGUMENT', `Step index ${index} out of range (0-${plan.steps.length - 1})`)
  );
};

const EVENT_OF = {
  in_progress: 'step_started',
  completed: 'step_completed',
  skipped: 'step_skipped',
} as const;

export interface IndexedUpdateOutcome {
  plan: Plan;
  step: Step;
  events: NewEvent[];
  /** The step reached completed or skipped now: whoever waits on it settles. */
  ended: boolean;
  changed: boolean;
}

/**
 * update_plan on the shared model: any of the four statuses may follow any other (the seed system only sets the
 * field), except that a step blocked on other agents can only be skipped. When the last open step ends, the plan
 * completes; a 004 plan completed that way stays editable (upstream has no plan status to freeze it): a later update
 * annotates a step, or reopens one and with it the plan. Plans ended otherwise no longer change.
 */
export const updateIndexedStep = (
  current: Plan,
  change: { index: number; status: IndexedPlanStatus; notes?: string | undefined },
  now: string,
): IndexedUpdateOutcome => {
  const reopenable = current.dialect === '004' && current.status === 'completed';
  if (FINISHED_PLAN_STATUSES.has(current.status) && !reopenable)
    fail(
      'FAILED_PRECONDITION',
      `Plan ${current.plan_id} is already ${current.status}; its steps can no longer change. Create a new plan with create_plan.`,
    );
  if (current.status !== 'in_progress' && !reopenable)
    fail(
      'FAILED_PRECONDITION',
      `Plan ${current.plan_id} is ${current.status} and waits for the user's approval; steps change once it is approved.`,
    );
  const plan = structuredClone(current);
  const step = stepAt(plan, change.index);
  const from = step.status;
  if (from === 'blocked' && change.status !== 'skipped')
    fail(
      'FAILED_PRECONDITION',
      `Step ${change.index} ("${step.description}") is blocked waiting on ` +
        `${(step.blocked_by ?? []).map((d) => `${d.agent_id}:${d.step_id}`).join(', ')}; it unblocks by itself when ` +
        'they end. Mark it skipped to give up on it.',
    );
  const statusChanged = from !== change.status;
  const notesChanged = change.notes !== undefined && change.notes !== step.notes;
  if (!statusChanged && !notesChanged) return { plan: current, step, events: [], ended: false, changed: false };

  step.status = change.status;
  if (change.notes !== undefined) step.notes = change.notes;
  if (statusChanged && change.status === 'in_progress') step.started_at = now;
  if (statusChanged && (change.status === 'completed' || change.status === 'skipped')) step.completed_at = now;
  if (statusChanged && change.status === 'pending') delete step.completed_at;
  plan.updated_at = now;
  if (reopenable && !ENDED_STEP_STATUSES.has(step.status)) {
    plan.status = 'in_progress';
    delete plan.completed_at;
  }

  const detail = { index: change.index, notes: step.notes ?? null, previous_status: from };
  const events: NewEvent[] = [];
  if (statusChanged && change.status !== 'pending')
    events.push(
      planEvent(plan, EVENT_OF[change.status], step, { result: step.result ?? null, error: null, ...detail }, now),
    );
  else
    events.push(
      planEvent(
        plan,
        'plan_modified',
        step,
        { change: statusChanged ? 'step_status' : 'step_notes', status: step.status, ...detail },
        now,
      ),
    );
  const ended = statusChanged && (change.status === 'completed' || change.status === 'skipped');
  if (ended && allEnded(plan) && plan.status === 'in_progress') {
    const finished = endPlan(plan, 'completed', undefined, now);
    const final = finished.plan.steps[change.index] ?? step;
    return { plan: finished.plan, step: final, events: [...events, ...finished.events], ended, changed: true };
  }
  return { plan, step, events, ended, changed: true };
};

/** get_plan's view of any plan (any dialect's): steps by index, notes falling back to a step's result or error. */
export const indexedPlanView = (plan: Plan) => ({
  ok: true as const,
  plan_id: plan.plan_id,
  title: plan.title,
  status: plan.status,
  steps: plan.steps.map((s, index) => ({
    index,
    description: s.description,
    status: s.status,
    notes: s.notes ?? s.result ?? s.error ?? '',
    step_id: s.id,
  })),
  completed_count: plan.steps.filter((s) => s.status === 'completed').length,
  total_count: plan.steps.length,
  // Upstream's output model dumps its unset error as null on success.
  error: null,
  progress: progressOf(plan.steps),
  dialect: plan.dialect,
  ...(plan.working_dir !== undefined ? { working_dir: plan.working_dir } : {}),
});

/**
 * get_plan without an id means "most recently changed", compared by time: two changes of one agent within the same
 * millisecond must still be ordered, so a change is stamped at least 1 ms after the agent's latest one.
 */
export const changeTimeAfter = (now: string, agent: AgentDoc): string => {
  const latest = agent.plans.reduce((max, p) => (p.changed_at > max ? p.changed_at : max), '');
  return now > latest ? now : new Date(Date.parse(latest) + 1).toISOString();
};
