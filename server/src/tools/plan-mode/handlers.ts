import type { ToolHandlers } from '../context.ts';
import { executionHandlers } from './execution-handlers.ts';
import { planManageHandlers } from './plan-manage.ts';
import { planModeHandlers } from './plan-mode-handlers.ts';
import { persistentTodoHandlers } from './todo-handlers.ts';

/**
 * Seed 002's tools except plan_approve / plan_reject, which decide every dialect's approvals (tools/approval/);
 * plan_manage dispatches to all of them.
 */
export const planModeToolHandlers = {
  ...planModeHandlers,
  ...executionHandlers,
  ...planManageHandlers,
  ...persistentTodoHandlers,
} satisfies Partial<ToolHandlers>;
