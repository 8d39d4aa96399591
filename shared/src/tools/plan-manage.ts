import { z } from 'zod';
import { ResultArg } from './common.ts';
import { defineTool } from './define.ts';
import { CompleteArgs, DecisionArgs, EnterArgs, ExitArgs, ModifyArgs } from './plan-mode-args.ts';
import { plan_approve, plan_complete, plan_enter, plan_exit, plan_modify, plan_reject } from './plan-mode.ts';
import { PLAN_MANAGE_ACTIONS, planManageWording, withUpstreamWording } from './plan-mode-wording.ts';

/**
 * Seed 002 as Triggerfish ships it since 2026-03-05: its eight plan tools merged into plan_manage(action), beside
 * plan_step_complete and plan_status. Each action takes the arguments of the seed tool it stands for, under the same
 * names, and answers what that tool answers. Every export of this file is a tool: the catalog spreads it.
 */
export const plan_manage = defineTool({
  name: 'plan_manage',
  dialect: '002',
  readOnly: false,
  behaviour: { requestsDecision: true },
  description:
    'Plan mode in one tool; action says what to do. "enter" (goal, scope?): start planning complex work, exploring ' +
    'with read-only tools (write_file and cron create/delete are blocked); entering while executing an approved plan ' +
    'cancels that plan. "exit" (plan): present your plan for the ' +
    'user\'s approval; do not start before it is approved. "approve" / "reject" (reason?): record the user\'s ' +
    'decision. "modify" (step_id, reason, new_description, new_files?, new_verification?): ask to change a step of ' +
    'the approved plan; it waits for approval. "complete" (summary, deviations?): finish the plan, naming honestly ' +
    'what was not done. Mark steps done with plan_step_complete; read your state with plan_status. Do not poll.',
  input: withUpstreamWording(
    z.object({
      action: z.enum(PLAN_MANAGE_ACTIONS).describe('What to do: enter, exit, approve, reject, complete or modify.'),
      goal: EnterArgs.goal.optional().describe('enter: what you are planning to build or change (required).'),
      scope: EnterArgs.scope.describe('enter: directories or modules to keep the exploration to.'),
      plan: ExitArgs.plan.optional().describe('exit: the implementation plan (required).'),
      summary: CompleteArgs.summary.optional().describe('complete: what was accomplished (required).'),
      deviations: CompleteArgs.deviations.describe('complete: changes from the plan, including steps not done.'),
      step_id: ModifyArgs.step_id.optional().describe('modify: which step needs changing (required).'),
      reason: ResultArg.optional().describe('modify: why the change is needed (required); reject: why (optional).'),
      new_description: ModifyArgs.new_description.optional().describe('modify: the updated description (required).'),
      new_files: ModifyArgs.new_files.describe('modify: the updated file list.'),
      new_verification: ModifyArgs.new_verification.describe('modify: the updated verification command.'),
      ...DecisionArgs,
    }),
    planManageWording,
  ),
  output: z.union([
    plan_enter.output,
    plan_exit.output,
    plan_approve.output,
    plan_reject.output,
    plan_complete.output,
    plan_modify.output,
  ]),
});
