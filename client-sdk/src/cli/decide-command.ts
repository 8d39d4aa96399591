import type { PlanHubClient } from '../connect.ts';
import type { CliOptions } from './options.ts';

const planOf = (options: CliOptions, verb: string): string => {
  const planId = options.rest[0] ?? options.plan;
  if (planId === undefined)
    throw new Error(`Name the plan: planhub ${verb} <plan_id>${verb === 'reject' ? ' [--reason "…"]' : ''}.`);
  return planId;
};

/** `planhub approve <plan_id>`: a person's decision, as a user client (it releases an agent waiting in startPlan). */
export const approveCommand = async (client: PlanHubClient, options: CliOptions): Promise<string> =>
  (await client.plan_approve({ plan_id: planOf(options, 'approve') })).message;

/** `planhub reject <plan_id> [--reason "…"]`. */
export const rejectCommand = async (client: PlanHubClient, options: CliOptions): Promise<string> =>
  (
    await client.plan_reject({
      plan_id: planOf(options, 'reject'),
      ...(options.reason !== undefined ? { reason: options.reason } : {}),
    })
  ).message;
