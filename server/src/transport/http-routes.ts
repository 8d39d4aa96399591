import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OriginCheck } from './origin-policy.ts';
import { isClientGone } from './read-body.ts';
import { refuse } from './refuse.ts';

export type Route = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

/**
 * Plain HTTP next to socket.io: health, readiness and whatever else a feature mounts, behind the origin policy. A
 * route that fails is answered INTERNAL and reported to `onError` (a failure must not vanish unlogged); one that
 * failed because the client left is reported with `clientGone`, since nothing went wrong on the node.
 */
export const createHttpHandler = (
  routes: Record<string, Route>,
  /** Required: it is /mcp's DNS rebinding defence, and the only origin check every route gets. */
  guard: OriginCheck,
  onError?: (err: unknown, path: string, clientGone: boolean) => void,
) => {
  const listed = Object.keys(routes)
    .filter((path) => !path.endsWith('/*'))
    .sort()
    .join(', ');
  return (req: IncomingMessage, res: ServerResponse) => {
    // Answered before the request finished arriving (a refusal before the body was read, a body past its limit):
    // the rest is not wanted, and a client dribbling it must not keep the connection. The one place that ends such
    // connections, for every route; closeIfEarly only announces it.
    res.once('finish', () => {
      if (!req.complete) req.socket.destroy();
    });
    const refusal = guard(req.headers);
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
      const gone = isClientGone(err);
      onError?.(err, path, gone);
      if (!gone)
        refuse(res, 500, 'INTERNAL', 'The node failed to answer this request; try again, and report it if it lasts.');
    });
  };
};
