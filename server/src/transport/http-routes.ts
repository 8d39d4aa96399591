import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OriginCheck } from './origin-policy.ts';

export type Route = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

/** Plain HTTP next to socket.io: health, readiness and whatever else a feature mounts, behind the origin policy. */
export const createHttpHandler =
  (routes: Record<string, Route>, guard?: OriginCheck) => (req: IncomingMessage, res: ServerResponse) => {
    const refusal = guard?.(req.headers);
    if (refusal !== undefined) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end(`${refusal}\n`);
      return;
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const route =
      routes[path] ??
      Object.entries(routes).find(([prefix]) => prefix.endsWith('/*') && path.startsWith(prefix.slice(0, -1)))?.[1];
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    Promise.resolve(route(req, res)).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error\n');
    });
  };
