import type { DashboardState } from '../state.ts';

/** Plan approvals and step modifications waiting for a person, across the workspace. */
const decisionsWaiting = (state: DashboardState): number =>
  (state.model.snapshot?.agents ?? []).reduce(
    (n, a) => n + a.pending_approvals.length + a.pending_modifications.length,
    0,
  );

/**
 * The tab's title and icon: a dashboard spends most of the day in a background tab, where these are all a person
 * sees, so they carry what needs that person (decisions waiting) and whether what the page shows is current.
 */
export const tabView = (state: DashboardState, doc: Document) => {
  let shownIcon: string | undefined;
  return {
    update() {
      const waiting = decisionsWaiting(state);
      // "connecting" is the first load, which shows nothing yet; the other two mean what is shown may be old.
      const offline = state.status === 'reconnecting' || state.status === 'refused';
      const title = [
        waiting ? `(${waiting}) ` : '',
        offline ? `${state.status === 'refused' ? 'Refused' : 'Disconnected'} · ` : '',
        `PlanHub · ${state.identity.workspace}`,
      ].join('');
      if (doc.title !== title) doc.title = title;
      // A dot on the icon, amber for a decision waiting, red while disconnected: visible when the title is cut off.
      const dot = offline ? '#b42323' : waiting ? '#e09b00' : '';
      if (dot === shownIcon) return;
      shownIcon = dot;
      const svg =
        `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d2330"/>` +
        `<path d="M9 23V9h8a5 5 0 0 1 0 10h-8" fill="none" stroke="#fff" stroke-width="3"/>` +
        (dot ? `<circle cx="25" cy="25" r="7" fill="${dot}" stroke="#fff" stroke-width="2"/>` : '') +
        '</svg>';
      const link =
        doc.querySelector<HTMLLinkElement>('link[rel="icon"]') ??
        doc.head.appendChild(Object.assign(doc.createElement('link'), { rel: 'icon' }));
      link.href = `data:image/svg+xml,${encodeURIComponent(svg)}`;
      link.dataset.state = dot ? (offline ? 'disconnected' : 'waiting') : 'quiet';
    },
  };
};
