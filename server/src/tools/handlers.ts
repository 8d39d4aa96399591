import type { ToolHandlers } from './context.ts';
import { approvalHandlers } from './approval/handlers.ts';
import { planCoreHandlers } from './plans/core-handlers.ts';
import { crossAgentHandlers } from './plans/cross-handlers.ts';
import { todoListHandlers } from './todo-list/handlers.ts';
import { planModeToolHandlers } from './plan-mode/handlers.ts';
import { taskListHandlers } from './task-list/handlers.ts';
import { indexedPlanHandlers } from './indexed-plans/handlers.ts';
import { planhubHandlers } from './planhub/handlers.ts';

/** Every tool's handler; the type makes a tool without a handler a compile error. */
export const HANDLERS: ToolHandlers = {
  ...planCoreHandlers,
  ...crossAgentHandlers,
  ...approvalHandlers,
  ...todoListHandlers,
  ...planModeToolHandlers,
  ...taskListHandlers,
  ...indexedPlanHandlers,
  ...planhubHandlers,
};
