import type { ToolName, ToolParsedArgs } from '@planhub/shared';
import { parseToolArgs } from '../tool-args.ts';
import { approvalHandlers } from '../approval/handlers.ts';
import type { ToolHandlers } from '../context.ts';
import { executionHandlers } from './execution-handlers.ts';
import { planModeHandlers } from './plan-mode-handlers.ts';

/**
 * An action's arguments as the seed tool it stands for takes them: validated by that tool's schema, so plan_manage
 * accepts and refuses exactly what the tool does (plan_manage's own schema already worded what upstream refuses).
 */
const argsOf = <N extends ToolName>(tool: N, args: Record<string, unknown>): ToolParsedArgs<N> =>
  parseToolArgs(tool, args, 'plan_manage');

/** Upstream's plan_manage(action): each action runs the seed tool it stands for, in the same call and commit. */
const plan_manage: ToolHandlers['plan_manage'] = (ctx, args) => {
  const { goal, scope, plan, summary, deviations, step_id, reason, new_description, new_files, new_verification } =
    args;
  const target = { plan_id: args.plan_id, agent_id: args.agent_id, modification: args.modification };
  switch (args.action) {
    case 'enter':
      return planModeHandlers.plan_enter(ctx, argsOf('plan_enter', { goal, scope }));
    case 'exit':
      return planModeHandlers.plan_exit(ctx, argsOf('plan_exit', { plan }));
    case 'approve':
      return approvalHandlers.plan_approve(ctx, argsOf('plan_approve', target));
    case 'reject':
      return approvalHandlers.plan_reject(ctx, argsOf('plan_reject', { ...target, reason }));
    case 'complete':
      return executionHandlers.plan_complete(ctx, argsOf('plan_complete', { summary, deviations }));
    case 'modify':
      return executionHandlers.plan_modify(
        ctx,
        argsOf('plan_modify', { step_id, reason, new_description, new_files, new_verification }),
      );
  }
};

export const planManageHandlers = { plan_manage } satisfies Partial<ToolHandlers>;
