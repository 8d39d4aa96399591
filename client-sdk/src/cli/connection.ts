import { randomBytes } from 'node:crypto';
import { NameSchema } from '@planhub/shared';
import type { Command } from 'commander';
import { Option } from 'commander';
import { connect, type PlanHubClient } from '../connect.ts';
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

/**
 * Connects as `agentId` (a user unless told otherwise; by default this process's own id); no retries: a command
 * answers once or says why not. In secret mode the token names the agent instead.
 */
export const openClient = (flags: ConnectionFlags, agentId = PROCESS_AGENT_ID, role: 'user' | 'dashboard' = 'user') =>
  connect({
    url: flags.url,
    workspace: flags.workspace,
    agentId,
    role,
    retries: 0,
    connectTimeoutMs: timeoutOf(flags.connectTimeout),
    // An empty PLANHUB_TOKEN means none, as in most tools.
    ...(flags.token ? { token: flags.token } : {}),
  });

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
