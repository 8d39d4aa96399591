import { h } from '../dom.ts';
import type { DashboardState } from '../state.ts';

/**
 * A link naming another workspace than the page's (#/ws/other/…): the page is connected to one workspace (the
 * query's, or the one its token names), so it shows its own overview and says so, with a way to open the other in
 * open mode. It used to show this workspace's overview silently while the address bar named the other.
 */
export const elsewhereView = (state: DashboardState, hash: string): Node[] => {
  const other = state.elsewhere;
  if (other === undefined) return [];
  const { identity } = state;
  const told = h(
    'p',
    {},
    `This link is for the workspace “${other}”, but this page is connected to “${identity.workspace}”: what is shown below is “${identity.workspace}”.`,
  );
  if (identity.token)
    return [
      told,
      h(
        'p',
        { class: 'muted small' },
        `Its sign-in link opens “${identity.workspace}” only: ask for a link to “${other}”.`,
      ),
    ];
  const q = new URLSearchParams({ workspace: other, agent: identity.agentId, role: identity.role });
  return [
    told,
    h('p', {}, h('a', { href: `/dashboard?${q.toString()}${hash}`, id: 'elsewhere-open' }, `Open “${other}” instead`)),
  ];
};
