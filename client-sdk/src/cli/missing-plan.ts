import { PlanHubError } from '@planhub/shared';
import type { ConnectionFlags } from './connection.ts';

/**
 * The node's refusal of a plan id it does not store speaks to a model (call getTaskEvents, getPlanStatus); a person
 * at a terminal is told the commands that do those jobs. Told by the code and the absence of `details`: the other
 * NOT_FOUND a named plan can meet carry upstream's fields in `details.native` and keep their words. The code stays,
 * so the exit code does.
 */
export const missingPlanForTheCommandLine = (err: unknown, planId: string, flags: ConnectionFlags): unknown => {
  if (!(err instanceof PlanHubError) || err.code !== 'NOT_FOUND' || err.details !== undefined) return err;
  // In secret mode the token names the workspace, and --workspace is not used.
  const where = flags.token ? "the token's workspace" : `workspace ${flags.workspace}`;
  return new PlanHubError(
    'NOT_FOUND',
    `no plan "${planId}" in ${where}: the id is wrong, or the plan finished and was removed. ` +
      "planhub plan --agent <id> shows an agent's current plan; planhub events --agent <id> shows its recent events.",
  );
};
