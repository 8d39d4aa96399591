/** The page's addressable views, as hash routes: #/ws/<workspace>[/graph|/timeline|/events|/plan/<id>[/step/<id>]]. */
export type Route =
  | { view: 'overview' }
  | { view: 'graph' }
  | { view: 'timeline' }
  | { view: 'events' }
  | { view: 'workspaces' }
  | { view: 'plan'; planId: string }
  | { view: 'step'; planId: string; stepId: string };

const seg = (s: string | undefined) => (s === undefined ? undefined : decodeURIComponent(s));

/** The route a hash names; anything unknown, malformed (a bad %-escape) or of another workspace is the overview. */
export const parseRoute = (hash: string, workspace: string): Route => {
  // The hash is whatever the address bar holds (a truncated or mistyped link); a URIError thrown out of the
  // hashchange handler left the page on its last view, throwing again at every later change.
  try {
    return routeOf(hash, workspace);
  } catch (err) {
    if (err instanceof URIError) return { view: 'overview' };
    throw err;
  }
};

/**
 * The workspace a `#/ws/<name>/…` hash names when it is not this page's. parseRoute shows this page's overview for
 * it; the page then says so (views/elsewhere.ts) rather than let the address bar name a workspace it does not show.
 */
export const otherWorkspaceOf = (hash: string, workspace: string): string | undefined => {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  if (parts[0] !== 'ws' || parts[1] === undefined) return undefined;
  try {
    const named = seg(parts[1]);
    return named === workspace ? undefined : named;
  } catch {
    return undefined;
  }
};

const routeOf = (hash: string, workspace: string): Route => {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  if (parts[0] === 'workspaces') return { view: 'workspaces' };
  if (parts[0] !== 'ws' || seg(parts[1]) !== workspace) return { view: 'overview' };
  const [, , kind, id, sub, subId] = parts;
  if (kind === 'graph' || kind === 'timeline' || kind === 'events') return { view: kind };
  if (kind === 'plan' && id) {
    const planId = seg(id)!;
    if (sub === 'step' && subId) return { view: 'step', planId, stepId: seg(subId)! };
    return { view: 'plan', planId };
  }
  return { view: 'overview' };
};

export const href = (workspace: string, route: Route): string => {
  const base = `#/ws/${encodeURIComponent(workspace)}`;
  switch (route.view) {
    case 'overview':
      return base;
    case 'workspaces':
      return '#/workspaces';
    case 'plan':
      return `${base}/plan/${encodeURIComponent(route.planId)}`;
    case 'step':
      return `${base}/plan/${encodeURIComponent(route.planId)}/step/${encodeURIComponent(route.stepId)}`;
    default:
      return `${base}/${route.view}`;
  }
};
