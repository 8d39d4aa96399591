import { randomUUID } from 'node:crypto';
import { DEFAULT_TOKEN_MAX_LIFETIME_S, RoleSchema, TokenClaimsSchema, parseTtl } from '@planhub/shared';
import type { Command } from 'commander';
import { Option } from 'commander';
import { SignJWT } from 'jose';
import { UsageError } from './exit-codes.ts';
import { secretProblem } from './secret-rule.ts';

interface TokenFlags {
  agent?: string;
  workspace: string;
  role: string;
  ttl: string;
  secret?: string;
}

const DAY_S = 86_400;

const warn = (text: string) => process.stderr.write(`planhub: warning: ${text}\n`);

/**
 * `planhub token`: mints an HS256 token for a node in secret mode, from the same secret (PLANHUB_SECRET or
 * --secret). Runs offline: the node verifies the signature, so nothing needs to be asked of it.
 */
export const mintCliToken = async (flags: TokenFlags): Promise<string> => {
  const secret = flags.secret;
  if (!secret) throw new UsageError('planhub token needs the server secret: set PLANHUB_SECRET or pass --secret.');
  const problem = secretProblem(secret);
  if (problem !== undefined) throw new UsageError(problem);
  if (flags.agent === undefined) throw new UsageError('Name the agent: planhub token --agent <agent_id> ...');
  const role = RoleSchema.safeParse(flags.role);
  if (!role.success) throw new UsageError(`--role must be agent, user or dashboard, not "${flags.role}".`);
  const claims = TokenClaimsSchema.safeParse({ workspace: flags.workspace, agent_id: flags.agent, role: role.data });
  if (!claims.success)
    throw new UsageError(
      `Invalid claims: ${claims.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  let ttl: number;
  try {
    ttl = parseTtl(flags.ttl);
  } catch (err) {
    throw new UsageError(`--ttl: ${err instanceof Error ? err.message : String(err)}`);
  }
  // Only warned about: minting runs offline, and the node this token is for may be configured to accept it.
  if (ttl > DEFAULT_TOKEN_MAX_LIFETIME_S)
    warn(
      `--ttl ${flags.ttl} is longer than the ${DEFAULT_TOKEN_MAX_LIFETIME_S / DAY_S} days a node accepts unless its ` +
        'PLANHUB_TOKEN_MAX_LIFETIME allows more; a node with the default refuses this token for connections ' +
        '(/metrics takes it: scrapers hold long-lived tokens).',
    );
  const now = Math.floor(Date.now() / 1000);
  return (
    new SignJWT(claims.data)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(now)
      .setExpirationTime(now + ttl)
      // The id the server's POST /tokens/revoke names.
      .setJti(randomUUID())
      .sign(new TextEncoder().encode(secret))
  );
};

export const tokenCommand = (program: Command): Command =>
  program
    .command('token')
    .description('mint a token for a node in secret mode (offline)')
    .option('-a, --agent <id>', 'the agent (or user) the token names')
    .addOption(new Option('-w, --workspace <name>', 'workspace').env('PLANHUB_WORKSPACE').default('default'))
    .option('--role <role>', 'role: agent, user or dashboard', 'agent')
    .option('--ttl <ttl>', 'lifetime: 15m, 1h, 7d or seconds', '1h')
    .addOption(new Option('--secret <secret>', "the node's secret").env('PLANHUB_SECRET'))
    .action(async (flags: TokenFlags) => console.log(await mintCliToken(flags)));
