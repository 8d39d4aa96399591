import { randomUUID } from 'node:crypto';
import { RoleSchema, TokenClaimsSchema, parseTtl } from '@planhub/shared';
import { SignJWT } from 'jose';
import type { CliOptions } from './options.ts';

/**
 * `planhub token`: mints an HS256 token for a server in secret mode, from the same secret (PLANHUB_SECRET or
 * --secret). Runs offline: the server verifies the signature, so nothing needs to be asked of it.
 */
export const tokenCommand = async (options: CliOptions, env: NodeJS.ProcessEnv): Promise<string> => {
  const secret = options.secret ?? env.PLANHUB_SECRET;
  if (!secret) throw new Error('planhub token needs the server secret: set PLANHUB_SECRET or pass --secret.');
  if (secret.length < 16) throw new Error('The secret is shorter than 16 characters; the server would refuse it.');
  if (options.agent === undefined) throw new Error('Name the agent: planhub token --agent <agent_id> ...');
  const role = RoleSchema.safeParse(options.role ?? 'agent');
  if (!role.success) throw new Error(`--role must be agent, user or dashboard, not "${options.role}".`);
  const claims = TokenClaimsSchema.safeParse({
    workspace: options.workspace,
    agent_id: options.agent,
    role: role.data,
  });
  if (!claims.success)
    throw new Error(
      `Invalid claims: ${claims.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  const now = Math.floor(Date.now() / 1000);
  return (
    new SignJWT(claims.data)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(now)
      .setExpirationTime(now + parseTtl(options.ttl ?? '1h'))
      // The id the server's POST /tokens/revoke names.
      .setJti(randomUUID())
      .sign(new TextEncoder().encode(secret))
  );
};
