import type { Route } from './http-routes.ts';
import { refuse } from './refuse.ts';

/** The methods of a read-only route. */
export const READ = ['GET', 'HEAD'];
/** Probes also answer OPTIONS: it is HAProxy's default health-check method, and a 405 would mark the node down. */
export const PROBE = [...READ, 'OPTIONS'];

/**
 * A route that answers only `methods`; anything else is refused 405 with an Allow header, before the route runs, so
 * a POST to a read-only route is told so instead of being answered as if it were a GET.
 */
export const onlyMethods =
  (methods: readonly string[], route: Route, what = ''): Route =>
  (req, res) => {
    if (methods.includes(req.method ?? '')) return route(req, res);
    refuse(
      res,
      405,
      'INVALID_ARGUMENT',
      `Use ${methods.join(' or ')} ${(req.url ?? '/').split('?')[0]?.slice(0, 200)}${what && ` ${what}`}.`,
      {
        allow: methods.join(', '),
      },
    );
  };
