import type { Caller } from '@planhub/shared';
import { PlanHubError, TOOLS, isToolName } from '@planhub/shared';

/**
 * A dashboard's write is refused on the tool name alone, before its arguments are walked or validated: a read-only
 * token must not be able to buy server time with large arguments it is not allowed to use anyway.
 */
export const refuseWriteBeforeParsing = (caller: Caller, raw: unknown): void => {
  if (caller.role !== 'dashboard' || typeof raw !== 'object' || raw === null) return;
  const tool: unknown = (raw as { tool?: unknown }).tool;
  if (typeof tool === 'string' && isToolName(tool) && !TOOLS[tool].readOnly)
    throw new PlanHubError(
      'PERMISSION_DENIED',
      `Dashboards are read-only; ${tool} changes state. Connect as an agent or user.`,
    );
};
