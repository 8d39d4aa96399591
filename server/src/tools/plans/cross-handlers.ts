import type { ToolHandlers } from '../context.ts';
import { addDependentStep } from './add-dependent-step.ts';
import { completeStepWithOutput } from './complete-step-with-output.ts';
import { getBlockedSteps } from './get-blocked-steps.ts';
import { getTaskEvents } from './get-task-events.ts';
import { listSubscriptions } from './list-subscriptions.ts';
import { subscribeToTasks } from './subscribe-to-tasks.ts';
import { unsubscribe } from './unsubscribe.ts';

/** Seed 000's cross-agent tools. */
export const crossAgentHandlers = {
  subscribeToTasks,
  addDependentStep,
  completeStepWithOutput,
  getBlockedSteps,
  getTaskEvents,
  listSubscriptions,
  unsubscribe,
} satisfies Partial<ToolHandlers>;
