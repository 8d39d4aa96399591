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
 * Why a websocket upgrade is refused, or undefined. A browser always sends the page's Origin on one, and no page can
 * read the answer to a refused handshake, so a browser's upgrade is held to the origin policy here, before it opens a
 * transport: accepted, a foreign page's websockets each held an engine slot of the victim's address until their
 * CONNECT or `connectTimeout`, and with `connectionsPerAddress` at 100 a page holding 200 locked every local client
 * of that address out (429). Clients that send no Origin (SDKs, CLIs) are checked at their CONNECT instead
 * (originGuard), where they get the refusal's code and message: a misaddressed host in open mode says what to set.
 */
const upgradeRefusal = (req: IncomingMessage, check: OriginCheck): string | undefined =>
  req.headers.origin === undefined ? undefined : check(req.headers);

/**
 * Engine middleware, ahead of the engine caps: polling requests that fail pollingRefusal, and browsers' websocket
 * upgrades that fail upgradeRefusal, are answered 403 PERMISSION_DENIED before they open or use a session.
 */
export const guardEngineOrigins = (io: Server, check: OriginCheck, deps: { refused: ThrottledLog }): void => {
  io.engine.use((req: EngineRequest, res: object, next: () => void) => {
    const upgrade = req.headers.upgrade !== undefined;
    const reason = upgrade ? upgradeRefusal(req, check) : pollingRefusal(req, check);
    if (reason === undefined) return next();
    deps.refused(
      'warn',
      { origin: req.headers.origin, host: req.headers.host, site: req.headers['sec-fetch-site'] },
      upgrade ? 'websocket upgrade refused: origin' : 'polling request refused: origin',
    );
    refuseEngineRequest(req, res, { status: 403, code: 'PERMISSION_DENIED', message: reason });
  });
};
