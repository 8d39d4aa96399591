import type { ToolHandlers } from './context.ts';
import { approvalHandlers } from './approval/handlers.ts';
import { core000Handlers } from './dialect-000/core-handlers.ts';
import { cross000Handlers } from './dialect-000/cross-handlers.ts';
import { dialect002Handlers } from './dialect-002/handlers.ts';
import { planhubHandlers } from './planhub/handlers.ts';

/** Every tool's handler; the type makes a tool without a handler a compile error. */
export const HANDLERS: ToolHandlers = {
  ...core000Handlers,
  ...cross000Handlers,
  ...approvalHandlers,
  ...dialect002Handlers,
  ...planhubHandlers,
};
