import type { ToolHandlers } from './context.ts';
import { approvalHandlers } from './approval/handlers.ts';
import { core000Handlers } from './dialect-000/core-handlers.ts';
import { cross000Handlers } from './dialect-000/cross-handlers.ts';
import { dialect001Handlers } from './dialect-001/handlers.ts';
import { dialect002Handlers } from './dialect-002/handlers.ts';
import { dialect003Handlers } from './dialect-003/handlers.ts';
import { dialect004Handlers } from './dialect-004/handlers.ts';
import { planhubHandlers } from './planhub/handlers.ts';

/** Every tool's handler; the type makes a tool without a handler a compile error. */
export const HANDLERS: ToolHandlers = {
  ...core000Handlers,
  ...cross000Handlers,
  ...approvalHandlers,
  ...dialect001Handlers,
  ...dialect002Handlers,
  ...dialect003Handlers,
  ...dialect004Handlers,
  ...planhubHandlers,
};
