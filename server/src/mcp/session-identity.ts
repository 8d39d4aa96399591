import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Caller } from '@planhub/shared';
import { OpenAuthSchema, PlanHubError } from '@planhub/shared';
import { lifetimeRefusal, tokenRefusal, type TokenPolicy } from '../auth/token-admission.ts';
import { tokenTerms, verifyToken } from '../auth/tokens.ts';
import { refusalSentences } from '../errors/to-error-shape.ts';
import type { HeldToken } from '../auth/token-holders.ts';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

const bearerOf = (req: IncomingMessage): string | undefined => {
  const header = req.headers.authorization;
  return header === undefined ? undefined : (BEARER.exec(header)?.[1] ?? '');
};

const openModeCaller = (query: URLSearchParams): Caller => {
  const parsed = refusalSentences(OpenAuthSchema, {
    workspace: query.get('workspace') ?? undefined,
    agent_id: query.get('agent_id') ?? undefined,
  });
  if (!parsed.ok)
    throw new PlanHubError(
      'UNAUTHENTICATED',
      `Name the agent in the endpoint URL: /mcp?workspace=<workspace>&agent_id=<agent id> (${parsed.text}).`,
    );
  // An MCP session speaks for a model, never for a person: users approve from the dashboard or the CLI.
  return { ...parsed.data, role: 'agent' };
};

/** Who an MCP request acts as, and in secret mode the token it came with (its id, expiry and digest). */
export interface Identified {
  caller: Caller;
  token?: HeldToken | undefined;
}

/**
 * Who an MCP request acts as. Secret mode: the bearer token alone, held to exactly what a socket handshake's token
 * is (signature, strict expiry, the lifetime the node accepts, not revoked); the query's workspace and agent_id are
 * ignored. A token its session still `held` is not looked up again: it was when first held, and its holder would
 * have been ended by a revocation since, as a socket connection is after its handshake. Open mode: the URL's
 * workspace and agent_id, as role agent.
 */
export const identify = async (
  req: IncomingMessage,
  query: URLSearchParams,
  auth: { secret: string | undefined; tokens: TokenPolicy },
  held: (token: HeldToken) => boolean = () => false,
): Promise<Identified> => {
  if (auth.secret === undefined) return { caller: openModeCaller(query) };
  const token = bearerOf(req);
  if (!token)
    throw new PlanHubError(
      'UNAUTHENTICATED',
      'This server is in secret mode: send "Authorization: Bearer <token>" signed with its PLANHUB_SECRET ' +
        '(mint one with: planhub token --workspace W --agent A --ttl 1h).',
    );
  let caller: Caller;
  try {
    caller = await verifyToken(auth.secret, token);
  } catch (err) {
    throw new PlanHubError('UNAUTHENTICATED', err instanceof Error ? err.message : 'Token refused.');
  }
  const terms = tokenTerms(token);
  const came: HeldToken = { jti: terms.jti, exp: terms.exp, digest: createHash('sha256').update(token).digest('hex') };
  if (held(came)) {
    const lifetime = lifetimeRefusal(terms, auth.tokens.maxLifetimeSeconds);
    if (lifetime !== undefined) throw new PlanHubError('UNAUTHENTICATED', lifetime);
    return { caller, token: came };
  }
  const refusal = await tokenRefusal(terms, auth.tokens);
  if (refusal !== undefined) throw new PlanHubError(refusal.code, refusal.message);
  return { caller, token: came };
};

export const sameCaller = (a: Caller, b: Caller): boolean =>
  a.workspace === b.workspace && a.agent_id === b.agent_id && a.role === b.role;
