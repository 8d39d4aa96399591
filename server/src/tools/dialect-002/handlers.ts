import type { ToolHandlers } from '../context.ts';
import { executionHandlers } from './execution-handlers.ts';
import { planModeHandlers } from './plan-mode-handlers.ts';
import { todo002Handlers } from './todo-handlers.ts';

/** Seed 002's tools except plan_approve / plan_reject, which decide every dialect's approvals (tools/approval/). */
export const dialect002Handlers = {
  ...planModeHandlers,
  ...executionHandlers,
  ...todo002Handlers,
} satisfies Partial<ToolHandlers>;
