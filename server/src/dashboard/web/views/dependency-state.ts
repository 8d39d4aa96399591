import type {
  DependencyRef,
  PlanStatus,
  PlanSummary,
  StepStatus,
  StepSummary,
  WorkspaceSnapshot,
} from '@planhub/shared';
import { ENDED_STEP_STATUSES, FINISHED_PLAN_STATUSES, sameDependency } from '@planhub/shared';

interface WaitingStep {
  status: StepStatus;
  blocked_by?: DependencyRef[] | undefined;
}

/**
 * Where a step stands with one dependency: `open` (still waited for), `resolved` (it ended and was delivered), or
 * `given-up`: the step, or its plan, ended first (skipped with its cancelled or failed plan, ended by its owner, or
 * left open by a completed plan), and the server gave its waits up then (tools/dependents.ts `endOwnWaits`), so
 * nothing will ever be delivered to it.
 */
export type DependencyState = 'open' | 'resolved' | 'given-up';

/** The step a dependency points at, and its plan, as far as the overview shows them. */
export const findTarget = (
  snapshot: WorkspaceSnapshot,
  ref: DependencyRef,
): { plan: PlanSummary; step: StepSummary } | undefined => {
  const agent = snapshot.agents.find((a) => a.agent_id === ref.agent_id);
  for (const plan of agent?.plans ?? []) {
    if (ref.plan_id && plan.plan_id !== ref.plan_id) continue;
    const step = plan.steps.find((s) => s.id === ref.step_id);
    if (step) return { plan, step };
  }
  return undefined;
};

/** The plan a step belongs to, as far as its waits go: a finished plan's steps wait for nothing any more. */
interface OwningPlan {
  status: PlanStatus;
}

/**
 * The status a step shows as a dependency: what its waiters receive (the server's `endedOutcome`,
 * core/dependencies/attach.ts). A step its plan left open when it finished (every step of a rejected plan, one a
 * completed plan left) will never end: its waiters received it as skipped, while its own status stays as it was.
 */
export const statusAsDependency = (step: { status: StepStatus }, plan: OwningPlan): StepStatus =>
  !ENDED_STEP_STATUSES.has(step.status) && FINISHED_PLAN_STATUSES.has(plan.status) ? 'skipped' : step.status;

/** The step a dependency points at, as far as the overview shows it, with the status its waiters see. */
export const dependencyTarget = (snapshot: WorkspaceSnapshot, ref: DependencyRef): StepSummary | undefined => {
  const found = findTarget(snapshot, ref);
  return found && { ...found.step, status: statusAsDependency(found.step, found.plan) };
};

/** Whether the step waits for nothing any more: it ended, or its plan did (a completed plan leaves steps open). */
const stoppedWaiting = (step: WaitingStep, plan: OwningPlan): boolean =>
  ENDED_STEP_STATUSES.has(step.status) || FINISHED_PLAN_STATUSES.has(plan.status);

/**
 * The server keeps the `blocked_by` of a step that stopped waiting as it was then (and so does the live model,
 * WorkspaceModel): what it still lists was given up.
 */
export const dependencyState = (step: WaitingStep, plan: OwningPlan, ref: DependencyRef): DependencyState => {
  const outstanding = (step.blocked_by ?? []).some((b) => sameDependency(b, ref));
  if (!outstanding) return 'resolved';
  return stoppedWaiting(step, plan) ? 'given-up' : 'open';
};

/** The dependencies a step still waits on: none once it or its plan ended, whatever its `blocked_by` still lists. */
export const openDependencies = (step: WaitingStep, plan: OwningPlan): DependencyRef[] =>
  stoppedWaiting(step, plan) ? [] : (step.blocked_by ?? []);

/** How a dependency's state reads after its name: "waiting (in progress)", "given up (skipped before it ended)"… */
export const dependencyStateText = (
  state: DependencyState,
  step: WaitingStep,
  plan: OwningPlan,
  target: { status: StepStatus } | undefined,
): string => {
  const targetStatus = target?.status.replace('_', ' ');
  if (state === 'open') return `waiting (${targetStatus ?? 'not started'})`;
  if (state === 'given-up')
    return ENDED_STEP_STATUSES.has(step.status)
      ? `given up (${step.status} before it ended)`
      : `given up (its plan was ${plan.status} first)`;
  // A skipped or failed target resolves its waiters too (they receive its outcome): say which.
  return target && target.status !== 'completed' ? `resolved (${targetStatus})` : 'resolved';
};
