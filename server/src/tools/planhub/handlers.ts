import type { ToolHandlers } from '../context.ts';
import { getWorkspace } from './get-workspace.ts';
import { listWorkspaces } from './list-workspaces.ts';

export const planhubHandlers = {
  getWorkspace,
  listWorkspaces,
} satisfies Partial<ToolHandlers>;
