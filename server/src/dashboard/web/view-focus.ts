import type { Route } from './router.ts';

/**
 * Where the focus goes on each view: a plan or step page's heading, a wide view's section heading, the overview's
 * <main> (the skip link's target; its first section changes with what waits). Back and forward to a view used to
 * leave the focus on the body (the link followed was gone), so a keyboard or screen reader user started over from
 * the top of the document.
 */
const TARGETS: Record<Route['view'], string> = {
  overview: 'main',
  graph: 'dependencies-h',
  timeline: 'timeline-h',
  events: 'events-h',
  workspaces: 'workspaces-h',
  plan: 'page-h',
  step: 'page-h',
};

/**
 * The focus wanted after a view change, given once its target is drawn (a plan page's heading comes after
 * "Loading…"), unless the reader has put the focus somewhere since: only a focus left on the body moves.
 */
export const createViewFocus = (doc: Document) => {
  let wanted: string | undefined;
  return {
    want(route: Route, elsewhere: boolean) {
      wanted = elsewhere ? 'elsewhere-h' : TARGETS[route.view];
    },
    /** After a render. */
    apply() {
      if (wanted === undefined) return;
      const target = doc.getElementById(wanted);
      if (!target) return;
      wanted = undefined;
      const active = doc.activeElement;
      if (!active || active === doc.body) target.focus();
    },
  };
};
