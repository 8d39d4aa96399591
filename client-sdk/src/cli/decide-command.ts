import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { decodeJwt } from 'jose';
import { withClient, withConnection, type ConnectionFlags } from './connection.ts';
import { UsageError } from './exit-codes.ts';
import { missingPlanForTheCommandLine } from './missing-plan.ts';

type DecideFlags = ConnectionFlags & { as?: string; reason?: string };

const localUser = (): string | undefined => {
  try {
    return userInfo().username || undefined;
  } catch {
    return undefined;
  }
};

/**
 * Who the decision is recorded as: the node puts the deciding user's id on plan_approved (approved_by) and
 * plan_rejected (rejected_by). In open mode that is `--as` (default: the local user name); in secret mode the token
 * names the user, and an `--as` that says otherwise is a mistake worth stopping for.
 */
const deciderOf = (flags: DecideFlags): string => {
  if (flags.token) {
    let named: unknown;
    try {
      named = decodeJwt(flags.token).agent_id;
    } catch {
      throw new UsageError('--token is not a JWT; mint one with: planhub token --agent <you> --role user.');
    }
    if (flags.as !== undefined && flags.as !== named)
      throw new UsageError(`The token names "${String(named)}", not "${flags.as}"; mint a token for ${flags.as}.`);
    return String(named);
  }
  return flags.as ?? process.env.PLANHUB_AS ?? localUser() ?? 'planhub-cli';
};

const decideCommand = (program: Command, verb: 'approve' | 'reject'): Command => {
  const command = program
    .command(`${verb} <plan_id>`)
    .description(`${verb} a plan waiting for approval (or its pending modification), as a user`)
    .option('--as <name>', 'who decides, as recorded on the event (env PLANHUB_AS, default: your user name)');
  if (verb === 'reject') command.option('--reason <text>', 'why, for the agent');
  return withConnection(command).action(async (planId: string, flags: DecideFlags) => {
    const decider = deciderOf(flags);
    const answer = await withClient(
      flags,
      (client) =>
        verb === 'approve'
          ? client.plan_approve({ plan_id: planId })
          : client.plan_reject({ plan_id: planId, ...(flags.reason !== undefined ? { reason: flags.reason } : {}) }),
      decider,
    ).catch((err: unknown) => {
      throw missingPlanForTheCommandLine(err, planId, flags);
    });
    console.log(`${answer.message} (decided by ${decider})`);
  });
};

/** `planhub approve <plan_id> [--as name]`: a person's decision; it releases an agent waiting in startPlan. */
export const approveCommand = (program: Command): Command => decideCommand(program, 'approve');

/** `planhub reject <plan_id> [--reason "…"] [--as name]`. */
export const rejectCommand = (program: Command): Command => decideCommand(program, 'reject');
