import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Caller } from '@planhub/shared';
import { tokenRefusal } from '../auth/token-admission.ts';
import { tokenTerms, verifyToken } from '../auth/tokens.ts';
import type { Revocations } from '../store/revocations/revocations.ts';
import type { ServerConfig } from '../config.ts';

export interface MetricsRefusal {
  status: 401 | 403 | 503;
  message: string;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant-time comparison of two strings of any length (hashing first makes the lengths equal). */
const sameToken = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected));

const bearer = (req: IncomingMessage): string | undefined =>
  /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];

const HOW =
  'send Authorization: Bearer <token>, where the token is PLANHUB_METRICS_TOKEN or, in secret mode, a PlanHub ' +
  'token of role user or dashboard (planhub token --agent prometheus --role dashboard --ttl 365d)';

/**
 * Who may scrape /metrics. Metrics carry no workspace data, but they show how busy a node is and which tools fail, so
 * a node that asks clients for tokens asks scrapers too. Open mode listens on loopback only, where it stays open
 * unless PLANHUB_METRICS_TOKEN is set.
 */
export const metricsRefusal = async (
  config: Pick<ServerConfig, 'secret' | 'metricsToken'>,
  req: IncomingMessage,
  revocations: Pick<Revocations, 'isRevoked'>,
): Promise<MetricsRefusal | undefined> => {
  if (config.secret === undefined && config.metricsToken === undefined) return undefined;
  const token = bearer(req);
  if (token === undefined) return { status: 401, message: `/metrics needs a token: ${HOW}.` };
  if (config.metricsToken !== undefined && sameToken(token, config.metricsToken)) return undefined;
  if (config.secret === undefined) return { status: 401, message: `Wrong metrics token: ${HOW}.` };
  let caller: Caller;
  try {
    caller = await verifyToken(config.secret, token);
  } catch (err) {
    return { status: 401, message: `${err instanceof Error ? err.message : 'Invalid token.'} To scrape: ${HOW}.` };
  }
  // Revoked is revoked at every door; the lifetime cap is not applied here, scrapers hold long-lived tokens.
  const refusal = await tokenRefusal(tokenTerms(token), { revocations });
  if (refusal?.code === 'UNAVAILABLE') return { status: 503, message: refusal.message };
  if (refusal !== undefined) return { status: 401, message: `${refusal.message} To scrape: ${HOW}.` };
  if (caller.role === 'user' || caller.role === 'dashboard') return undefined;
  return { status: 403, message: `A token of role ${caller.role} cannot read /metrics: ${HOW}.` };
};
