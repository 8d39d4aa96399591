import type { IncomingMessage } from 'node:http';
import type { Server } from 'socket.io';
import { refuseEngineRequest } from './engine-refusal.ts';
import type { OriginCheck } from './origin-policy.ts';
import type { ThrottledLog } from '../throttled-log.ts';

type EngineRequest = IncomingMessage & { _query?: Record<string, string> };

const queryOf = (req: EngineRequest): Record<string, string> =>
  req._query ?? Object.fromEntries(new URL(req.url ?? '/', 'http://engine').searchParams);

/** Fetch metadata a browser sends with every request: a page of another site, whatever it left out. */
const CROSS_SITE = new Set(['cross-site', 'same-site']);

/**
 * Why an HTTP long-polling request is refused, or undefined. The socket's CONNECT is checked by originGuard, but a
 * polling session is made of many requests and the CONNECT is only one of them:
 * - JSONP polling (a `j` query) is a `<script>` GET, which carries no Origin: a page of any site could open a session,
 *   read its id from the script it runs, and connect through it. No PlanHub client uses JSONP.
 * - Every request of a session is held to the origin policy, not only the one that carries the CONNECT.
 * - A browser's request without an Origin (a `no-cors` fetch) still says, through Sec-Fetch-Site, that another site's
 *   page sent it: such requests only open sessions nobody can use, each held against the address's cap until it
 *   times out, which locked every local client out. SDKs, CLIs and other non-browser clients send neither header.
 */
export const pollingRefusal = (req: EngineRequest, check: OriginCheck): string | undefined => {
  if (queryOf(req).j !== undefined)
    return 'JSONP polling is not served. Connect with the websocket or the XHR polling transport (what socket.io clients use by default).';
  const reason = check(req.headers);
  if (reason !== undefined) return reason;
  const site = req.headers['sec-fetch-site'];
  if (req.headers.origin === undefined && typeof site === 'string' && CROSS_SITE.has(site))
    return 'A page of another site may not reach this node; only its own pages (the dashboard) and clients that send no Origin (the SDK, the CLI) may.';
  return undefined;
};

/**
 * Engine middleware, ahead of the engine caps: polling requests that fail pollingRefusal are answered 403
 * PERMISSION_DENIED before they open or use a session. A websocket upgrade always carries a browser's Origin, so
 * originGuard answers it at the CONNECT, where the client gets the refusal's code and message.
 */
export const guardPollingOrigins = (io: Server, check: OriginCheck, deps: { refused: ThrottledLog }): void => {
  io.engine.use((req: EngineRequest, res: object, next: () => void) => {
    if (req.headers.upgrade !== undefined) return next();
    const reason = pollingRefusal(req, check);
    if (reason === undefined) return next();
    deps.refused(
      'warn',
      { origin: req.headers.origin, host: req.headers.host, site: req.headers['sec-fetch-site'] },
      'polling request refused: origin',
    );
    refuseEngineRequest(req, res, { status: 403, code: 'PERMISSION_DENIED', message: reason });
  });
};
