import type { DependencyRef, PlanSummary, StepStatus, StepSummary, WorkspaceSnapshot } from '@planhub/shared';
import { ENDED_STEP_STATUSES, sameDependency } from '@planhub/shared';

interface WaitingStep {
  status: StepStatus;
  blocked_by?: DependencyRef[] | undefined;
}

/**
 * Where a step stands with one dependency: `open` (still waited for), `resolved` (it ended and was delivered), or
 * `given-up`: the step ended first (skipped with its cancelled or failed plan, or ended by its owner), and the server
 * gave its waits up then (tools/dependents.ts `giveUpWaits`), so nothing will ever be delivered to it.
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

const hasEnded = (step: WaitingStep): boolean => ENDED_STEP_STATUSES.has(step.status);

/**
 * The server keeps an ended step's `blocked_by` as it was when the step ended (and so does the live model,
 * WorkspaceModel): what it still lists then was given up.
 */
export const dependencyState = (step: WaitingStep, ref: DependencyRef): DependencyState => {
  const outstanding = (step.blocked_by ?? []).some((b) => sameDependency(b, ref));
  if (!outstanding) return 'resolved';
  return hasEnded(step) ? 'given-up' : 'open';
};

/** The dependencies a step still waits on: none once it has ended, whatever its stored `blocked_by` still lists. */
export const openDependencies = (step: WaitingStep): DependencyRef[] => (hasEnded(step) ? [] : (step.blocked_by ?? []));

/** How a dependency's state reads after its name: "waiting (in progress)", "given up (skipped before it ended)"… */
export const dependencyStateText = (
  state: DependencyState,
  step: WaitingStep,
  target: { status: StepStatus } | undefined,
): string => {
  const targetStatus = target?.status.replace('_', ' ');
  if (state === 'open') return `waiting (${targetStatus ?? 'not started'})`;
  if (state === 'given-up') return `given up (${step.status} before it ended)`;
  // A skipped or failed target resolves its waiters too (they receive its outcome): say which.
  return target && target.status !== 'completed' ? `resolved (${targetStatus})` : 'resolved';
};
