import { renderPlanText } from '@planhub/shared';
import type { PlanHubClient } from '../connect.ts';
import type { CliOptions } from './options.ts';

/** Seed 000's `plan` user command: the rendering is for people and never goes to a model. */
export const planCommand = async (client: PlanHubClient, options: CliOptions): Promise<string> => {
  if (options.plan === undefined && options.agent === undefined)
    throw new Error('Name whose plan to show: planhub plan --agent <agent_id> (or --plan <plan_id>).');
  const plan = await client.getPlanStatus({
    ...(options.plan !== undefined ? { plan_id: options.plan } : {}),
    ...(options.agent !== undefined ? { agent_id: options.agent } : {}),
  });
  return renderPlanText(plan);
};
