import type { ToolHandlers } from '../context.ts';
import { executionHandlers } from './execution-handlers.ts';
import { planModeHandlers } from './plan-mode-handlers.ts';
import { persistentTodoHandlers } from './todo-handlers.ts';

/** Seed 002's tools except plan_approve / plan_reject, which decide every dialect's approvals (tools/approval/). */
export const planModeToolHandlers = {
  ...planModeHandlers,
  ...executionHandlers,
  ...persistentTodoHandlers,
} satisfies Partial<ToolHandlers>;
