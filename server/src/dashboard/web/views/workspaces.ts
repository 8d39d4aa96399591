import { h } from '../dom.ts';
import type { DashboardState } from '../state.ts';

/** The workspaces this page may open; each link reconnects the page to that workspace. */
export const workspacesView = (state: DashboardState, names: string[] | undefined, error?: string): Node[] => {
  if (error) return [h('p', { class: 'error' }, error)];
  if (!names) return [h('p', { class: 'muted' }, 'Loading the workspaces…')];
  const { identity } = state;
  const link = (ws: string) => {
    if (identity.token) return `#/ws/${encodeURIComponent(ws)}`;
    const q = new URLSearchParams({ workspace: ws, agent: identity.agentId, role: identity.role });
    return `/dashboard?${q.toString()}#/ws/${encodeURIComponent(ws)}`;
  };
  return [
    h(
      'ul',
      { class: 'workspaces' },
      ...names.map((ws) =>
        h(
          'li',
          {},
          h('a', { href: link(ws), 'aria-current': ws === identity.workspace ? 'page' : undefined }, ws),
          ws === identity.workspace ? h('span', { class: 'muted small' }, ' (this one)') : null,
        ),
      ),
    ),
    identity.token ? h('p', { class: 'muted small' }, 'A signed token opens one workspace: the one it names.') : null,
  ].filter((n): n is HTMLElement => n !== null);
};
