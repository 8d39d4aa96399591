import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorCode } from '@planhub/shared';
import type { OriginCheck } from './origin-policy.ts';

export type Route = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

/** A refusal in the shape every other answer of PlanHub has: `{ ok: false, error: { code, message } }`. */
const refuse = (res: ServerResponse, status: number, code: ErrorCode, message: string): void => {
  // A route that failed after it began its answer can only end it.
  if (res.headersSent) return void res.end();
  res
    .writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
    .end(`${JSON.stringify({ ok: false, error: { code, message } })}\n`);
};

/**
 * Plain HTTP next to socket.io: health, readiness and whatever else a feature mounts, behind the origin policy. A
 * route that fails is answered INTERNAL and reported to `onError` (a failure must not vanish unlogged).
 */
export const createHttpHandler = (
  routes: Record<string, Route>,
  guard?: OriginCheck,
  onError?: (err: unknown, path: string) => void,
) => {
  const listed = Object.keys(routes)
    .filter((path) => !path.endsWith('/*'))
    .sort()
    .join(', ');
  return (req: IncomingMessage, res: ServerResponse) => {
    const refusal = guard?.(req.headers);
    if (refusal !== undefined) {
      refuse(res, 403, 'PERMISSION_DENIED', refusal);
      return;
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const route =
      routes[path] ??
      Object.entries(routes).find(([prefix]) => prefix.endsWith('/*') && path.startsWith(prefix.slice(0, -1)))?.[1];
    if (!route) {
      refuse(
        res,
        404,
        'NOT_FOUND',
        `No route ${path.slice(0, 200)} here. This node answers HTTP at ${listed}, and socket.io at /socket.io/.`,
      );
      return;
    }
    Promise.resolve(route(req, res)).catch((err: unknown) => {
      onError?.(err, path);
      refuse(res, 500, 'INTERNAL', 'The node failed to answer this request; try again, and report it if it lasts.');
    });
  };
};
