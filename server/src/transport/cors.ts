import { MCP_EVENT_CURSOR_HEADER } from '@planhub/shared';
import type { Route } from './http-routes.ts';
import { normalizeOrigin } from './origin-policy.ts';

export interface CorsRules {
  methods: readonly string[];
  /** Request headers a page may send (the preflight's Access-Control-Allow-Headers). */
  headers: readonly string[];
  /** Response headers a page may read. */
  exposed: readonly string[];
}

/**
 * What the MCP Streamable HTTP client sends and must read: without the session id exposed, a page could open a
 * session but never name it again.
 */
export const MCP_CORS: CorsRules = {
  methods: ['GET', 'POST', 'DELETE'],
  headers: ['content-type', 'accept', 'authorization', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'],
  exposed: ['mcp-session-id', 'mcp-protocol-version', MCP_EVENT_CURSOR_HEADER],
};

/** Chromium caps a cached preflight at two hours; removing an origin does not wait for it (see allowCors). */
const MAX_AGE_SECONDS = 7200;

/**
 * CORS for a route, to the pages of `allowedOrigins` only. It runs behind the origin policy, which has refused every
 * other page already, so it decides only what an admitted page may read; the node's own pages are same-origin and
 * need none of it. The allowed origin is echoed, never `*`, and credentials are not allowed: callers authenticate with
 * an Authorization header, which a page sets itself, not with cookies the browser would attach for it. An origin
 * dropped from the list is refused by the policy at its next request, whatever preflight the browser cached.
 */
export const allowCors = (allowedOrigins: readonly string[], rules: CorsRules, route: Route): Route => {
  const origins = new Set(allowedOrigins.map(normalizeOrigin));
  const preflight = {
    'access-control-allow-methods': rules.methods.join(', '),
    'access-control-allow-headers': rules.headers.join(', '),
    'access-control-max-age': String(MAX_AGE_SECONDS),
  };
  return (req, res) => {
    // On every answer, not only those to listed pages: whether CORS headers are present depends on the Origin.
    res.setHeader('vary', 'Origin');
    const origin = req.headers.origin;
    if (origin === undefined || !origins.has(origin)) return route(req, res);
    // Set before the route runs so they reach every answer it writes (a refusal, an event stream, a failure the
    // router answers): writeHead merges them with its own.
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('access-control-expose-headers', rules.exposed.join(', '));
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined)
      res.writeHead(204, preflight).end();
    else return route(req, res);
  };
};
