import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Revocations } from '../store/revocations/revocations.ts';
import { readBody } from '../transport/read-body.ts';
import { refuse } from '../transport/refuse.ts';
import { TokenError, tokenTerms, verifyToken } from './tokens.ts';

const MAX_BODY = 16 * 1024;

const reply = (res: ServerResponse, body: unknown) =>
  void res.writeHead(200, { 'content-type': 'application/json' }).end(`${JSON.stringify(body)}\n`);

/**
 * POST /tokens/revoke with `{ "token": "<jwt>" }`: whoever holds a token may kill it (a leaked token, a finished
 * agent), on every node, until its expiry. Proof of possession is the only credential needed, so nothing else can be
 * revoked this way; to revoke every token at once, rotate PLANHUB_SECRET. Mounted behind onlyMethods(['POST']).
 */
export const revokeTokenRoute =
  (secret: string, revocations: Revocations) =>
  async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // A client that leaves mid-body rejects this with ClientGone, which the router logs at debug.
    const body = await readBody(req, MAX_BODY);
    if (body === undefined)
      return refuse(
        res,
        413,
        'RESOURCE_EXHAUSTED',
        `Body is larger than ${MAX_BODY} bytes; send only JSON { "token": "<the token to revoke>" }.`,
      );
    let token: unknown;
    try {
      ({ token } = JSON.parse(body) as { token?: unknown });
    } catch {
      token = undefined;
    }
    if (typeof token !== 'string')
      return refuse(res, 400, 'INVALID_ARGUMENT', 'Send JSON { "token": "<the token to revoke>" }.');
    try {
      await verifyToken(secret, token);
    } catch (err) {
      if (err instanceof TokenError && /expired/.test(err.message))
        return reply(res, { ok: true, result: { revoked: false, message: 'Token has already expired.' } });
      return refuse(res, 401, 'UNAUTHENTICATED', err instanceof Error ? err.message : 'Token is invalid.', {
        'www-authenticate': 'Bearer realm="planhub"',
      });
    }
    const { exp, jti } = tokenTerms(token);
    if (jti === undefined)
      return refuse(
        res,
        400,
        'FAILED_PRECONDITION',
        'Token has no jti claim, so it cannot be revoked alone; rotate PLANHUB_SECRET to revoke every token.',
      );
    await revocations.revoke(jti, exp);
    reply(res, { ok: true, result: { revoked: true, jti, until: new Date(exp * 1000).toISOString() } });
  };
