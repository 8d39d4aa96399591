import { z } from 'zod';
import { MAX_DESCRIPTION } from '../limits.ts';
import { IdArg, ResultArg, StepTextArg } from './common.ts';
import { ImplementationPlanSchema, Notes, Paths, StepNumber } from './plan-mode-model.ts';

/**
 * Seed 002's arguments, shared by its tools and by plan_manage, which takes each action's arguments under the same
 * names (no tools here: catalog.ts spreads tool files).
 */

/**
 * Upstream refuses only a goal of length 0 (one of spaces is a goal) and takes any scope: both are kept as sent.
 */
export const EnterArgs = {
  goal: z.string().min(1).max(MAX_DESCRIPTION).describe('What you are planning to build or change.'),
  scope: z.string().max(MAX_DESCRIPTION).optional().describe('Directories or modules to keep the exploration to.'),
};

export const ExitArgs = { plan: ImplementationPlanSchema.describe('The implementation plan.') };

export const DecisionArgs = {
  plan_id: IdArg.optional().describe('The plan to decide (default: the one waiting for a decision).'),
  agent_id: IdArg.optional().describe('Whose waiting plan to decide (for users deciding for an agent).'),
  modification: z
    .boolean()
    .optional()
    .describe('true: decide the pending plan_modify request; false: decide the plan itself. Default: whichever waits.'),
};

export const RejectArgs = { ...DecisionArgs, reason: ResultArg.optional() };

export const StepCompleteArgs = {
  step_id: StepNumber.describe('The step id (a number) from your plan.'),
  verification_result: ResultArg.describe('Output of the verification command.'),
};

export const CompleteArgs = {
  summary: ResultArg.min(1, 'must not be empty').describe('What was accomplished.'),
  deviations: Notes.optional().describe('Changes from the approved plan, including steps not done and why.'),
};

/** Upstream checks only that reason and new_description are strings, so an empty one is accepted as sent. */
export const ModifyArgs = {
  step_id: StepNumber.describe('Which step needs changing.'),
  reason: ResultArg.describe('Why the change is needed.'),
  new_description: StepTextArg.describe('The updated step description.'),
  new_files: Paths.optional().describe('The updated file list.'),
  new_verification: ResultArg.optional().describe('The updated verification command.'),
};

/** Upstream keeps an item's timestamps as sent; PlanHub does too, and stamps its own when they are left out. */
const Timestamp = z.string().max(64);

export const TodoItemArg = z.object({
  id: IdArg.describe('Your unique id for the item; keep it stable across writes.'),
  // Upstream only requires a non-empty string, so "  " is content too; it is stored as sent, never trimmed.
  content: z.string().min(1).max(MAX_DESCRIPTION).describe('What needs doing.'),
  status: z.enum(['pending', 'in_progress', 'completed'], {
    error: 'status must be pending, in_progress or completed',
  }),
  priority: z.enum(['high', 'medium', 'low'], { error: 'priority must be high, medium or low' }),
  created_at: Timestamp.optional().describe(
    'When the item was created, ISO-8601 (e.g. 2026-03-30T12:00:00Z). Kept as sent; leave it out and PlanHub ' +
      'keeps the first time it saw the item.',
  ),
  updated_at: Timestamp.optional().describe(
    'When the item last changed, ISO-8601. Kept as sent; leave it out and PlanHub stamps the time the item changed.',
  ),
});
