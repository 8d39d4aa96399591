import type { ToolHandlers } from '../context.ts';
import { getWorkspace } from './get-workspace.ts';

export const planhubHandlers = {
  getWorkspace,
} satisfies Partial<ToolHandlers>;
