import { fail } from '@planhub/shared';
import type { ToolHandlers } from '../context.ts';

/**
 * The workspace index, for people and dashboards. A signed token names one workspace, so in secret mode the answer
 * is that one: the index would otherwise tell a token holder the names of every other team.
 */
export const listWorkspaces: ToolHandlers['listWorkspaces'] = async (ctx) => {
  const { caller, services } = ctx;
  if (caller.role === 'agent')
    fail('PERMISSION_DENIED', 'listWorkspaces is only for users and dashboards; an agent works in its own workspace.');
  const known = services.config.secret === undefined ? ((await services.workspaces?.workspaces()) ?? []) : [];
  const workspaces =
    services.config.secret === undefined && known.includes(caller.workspace)
      ? known
      : [...known, caller.workspace].sort();
  return { workspaces, count: workspaces.length };
};
