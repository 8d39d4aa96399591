import { renderPlanText } from '@planhub/shared';
import type { Command } from 'commander';
import { approvalLine } from './approval-line.ts';
import { withClient, withConnection, type ConnectionFlags } from './connection.ts';
import { refuseEmptyFlags } from './empty-flag.ts';
import { UsageError } from './exit-codes.ts';
import { missingPlanForTheCommandLine } from './missing-plan.ts';

type PlanFlags = ConnectionFlags & { agent?: string; plan?: string };

/** Seed 000's `plan` user command: the rendering is for people and never goes to a model. */
export const planCommand = (program: Command): Command =>
  withConnection(
    program
      .command('plan')
      .description("show an agent's current plan (seed 000's rendering)")
      // An empty PLANHUB_AGENT is an unset one; an empty --agent is refused below.
      .option('-a, --agent <id>', 'whose current plan (env PLANHUB_AGENT)', process.env.PLANHUB_AGENT || undefined)
      .option('--plan <id>', 'a plan by its id'),
  ).action(async (flags: PlanFlags) => {
    refuseEmptyFlags({ '--agent': flags.agent, '--plan': flags.plan });
    if (flags.plan === undefined && flags.agent === undefined)
      throw new UsageError('Name whose plan to show: planhub plan --agent <agent_id> (or --plan <plan_id>).');
    const plan = await withClient(flags, (client) =>
      client.getPlanStatus({
        ...(flags.plan !== undefined ? { plan_id: flags.plan } : {}),
        ...(flags.agent !== undefined ? { agent_id: flags.agent } : {}),
      }),
    ).catch((err: unknown) => {
      // Only a plan named by id can be one the node does not store; --agent alone is refused in other words.
      throw flags.plan === undefined ? err : missingPlanForTheCommandLine(err, flags.plan, flags);
    });
    console.log(renderPlanText(plan));
    // The id `approve` needs is nowhere else in this rendering.
    if (plan.status === 'awaiting_approval') console.log(approvalLine(plan.plan_id));
  });
