import { randomBytes } from 'node:crypto';
import { NameSchema, PlanHubError, tokenRequiredOf } from '@planhub/shared';
import type { Command } from 'commander';
import { Option } from 'commander';
import { connect, type PlanHubClient } from '../connect.ts';
import { nodeUrlProblem } from '../node-url.ts';
import { UsageError } from './exit-codes.ts';

/** The options of every command that talks to a node; the environment supplies defaults so scripts need not repeat them. */
export interface ConnectionFlags {
  url: string;
  workspace: string;
  token?: string;
  connectTimeout: string;
}

export const withConnection = (command: Command): Command =>
  command
    .addOption(new Option('--url <url>', 'PlanHub node').env('PLANHUB_URL').default('http://127.0.0.1:4000'))
    .addOption(new Option('-w, --workspace <name>', 'workspace').env('PLANHUB_WORKSPACE').default('default'))
    .addOption(new Option('--token <jwt>', 'token for a node in secret mode').env('PLANHUB_TOKEN'))
    .addOption(
      new Option('--connect-timeout <ms>', 'give up (exit 3) when no node answers within this time').default('5000'),
    );

const timeoutOf = (value: string): number => {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1) throw new UsageError(`--connect-timeout takes milliseconds, not "${value}".`);
  return ms;
};

/**
 * Who this process connects as when the command names nobody. Subscriptions belong to the agent and are stored, so a
 * shared id would let one reader receive what another subscribed to (a running `watch`, or one killed before it could
 * unsubscribe); an id of its own per process keeps each reader to its own filter.
 */
const PROCESS_AGENT_ID = `planhub-cli-${randomBytes(4).toString('hex')}`;

/** `--as <id>` of the commands that follow events: a fixed identity instead of the per-process one. */
export const withIdentity = (command: Command): Command =>
  command.option('--as <id>', 'connect as this agent id (default: planhub-cli-<random>, new for each process)');

/** The agent id a reading command connects as: the one named with --as, or this process's own. */
export const readerIdOf = (named: string | undefined): string => {
  if (named === undefined) return PROCESS_AGENT_ID;
  const parsed = NameSchema.safeParse(named);
  if (!parsed.success)
    throw new UsageError(`--as: "${named}" is not an agent id (${parsed.error.issues[0]?.message}).`);
  return parsed.data;
};

/** `--url`, checked as `planhub mcp` checks it: a usage error at once rather than a DNS error after the deadline. */
export const urlOf = (value: string, schemes?: readonly string[], options?: { path?: boolean }): string => {
  const problem = nodeUrlProblem(value, schemes, options);
  // The value may have come from PLANHUB_URL rather than the option.
  if (problem !== undefined) throw new UsageError(`--url (or PLANHUB_URL) ${problem}`);
  return value;
};

/**
 * The node's secret-mode refusal speaks to whoever codes a client (`auth: { token }`); on the command line the fix is
 * an option. Told by the refusal's `token_required`, not its words, which are the node's to change. The node's code
 * is kept, so the exit code stays "refused".
 */
export const forTheCommandLine = (err: unknown, hadToken: boolean): unknown =>
  !hadToken && err instanceof PlanHubError && err.code === 'UNAUTHENTICATED' && tokenRequiredOf(err.details)
    ? new PlanHubError(
        'UNAUTHENTICATED',
        'This node is in secret mode: pass --token <jwt> (or PLANHUB_TOKEN); ' +
          'mint one with planhub token --agent <you> --role user.',
      )
    : err;

/**
 * Connects as `agentId` (a user unless told otherwise; by default this process's own id); no retries: a command
 * answers once or says why not. In secret mode the token names the agent instead.
 */
export const openClient = async (
  flags: ConnectionFlags,
  agentId = PROCESS_AGENT_ID,
  role: 'user' | 'dashboard' = 'user',
): Promise<PlanHubClient> => {
  const options = {
    url: urlOf(flags.url),
    workspace: flags.workspace,
    agentId,
    role,
    retries: 0,
    connectTimeoutMs: timeoutOf(flags.connectTimeout),
    // An empty PLANHUB_TOKEN means none, as in most tools.
    ...(flags.token ? { token: flags.token } : {}),
  };
  try {
    return await connect(options);
  } catch (err) {
    throw forTheCommandLine(err, options.token !== undefined);
  }
};

/** Runs `body` with a connected client and closes it, whatever happens. */
export const withClient = async <T>(
  flags: ConnectionFlags,
  body: (client: PlanHubClient) => Promise<T>,
  agentId?: string,
): Promise<T> => {
  const client = await openClient(flags, agentId);
  try {
    return await body(client);
  } finally {
    client.close();
  }
};
