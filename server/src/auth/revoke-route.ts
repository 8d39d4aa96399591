import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Revocations } from '../store/revocations/revocations.ts';
import { TokenError, tokenTerms, verifyToken } from './tokens.ts';

const MAX_BODY = 16 * 1024;

const reply = (res: ServerResponse, status: number, body: unknown) =>
  void res.writeHead(status, { 'content-type': 'application/json' }).end(`${JSON.stringify(body)}\n`);

const fail = (res: ServerResponse, status: number, code: string, message: string) =>
  reply(res, status, { ok: false, error: { code, message } });

const readBody = (req: IncomingMessage): Promise<string | undefined> =>
  new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > MAX_BODY) {
        resolve(undefined);
        req.destroy();
      }
    });
    req.once('end', () => resolve(body));
    req.once('error', reject);
  });

/**
 * POST /tokens/revoke with `{ "token": "<jwt>" }`: whoever holds a token may kill it (a leaked token, a finished
 * agent), on every node, until its expiry. Proof of possession is the only credential needed, so nothing else can be
 * revoked this way; to revoke every token at once, rotate PLANHUB_SECRET.
 */
export const revokeTokenRoute =
  (secret: string, revocations: Revocations) =>
  async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const body = await readBody(req);
    if (body === undefined) return fail(res, 413, 'RESOURCE_EXHAUSTED', `Body is larger than ${MAX_BODY} bytes.`);
    let token: unknown;
    try {
      ({ token } = JSON.parse(body) as { token?: unknown });
    } catch {
      token = undefined;
    }
    if (typeof token !== 'string')
      return fail(res, 400, 'INVALID_ARGUMENT', 'Send JSON { "token": "<the token to revoke>" }.');
    try {
      await verifyToken(secret, token);
    } catch (err) {
      if (err instanceof TokenError && /expired/.test(err.message))
        return reply(res, 200, { ok: true, result: { revoked: false, message: 'Token has already expired.' } });
      return fail(res, 400, 'UNAUTHENTICATED', err instanceof Error ? err.message : 'Token is invalid.');
    }
    const { exp, jti } = tokenTerms(token);
    if (jti === undefined)
      return fail(
        res,
        400,
        'FAILED_PRECONDITION',
        'Token has no jti claim, so it cannot be revoked alone; rotate PLANHUB_SECRET to revoke every token.',
      );
    await revocations.revoke(jti, exp);
    reply(res, 200, { ok: true, result: { revoked: true, jti, until: new Date(exp * 1000).toISOString() } });
  };
