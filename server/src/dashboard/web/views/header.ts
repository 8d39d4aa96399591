import { h } from '../dom.ts';
import type { DashboardState } from '../state.ts';

const LABEL = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…', refused: 'refused' } as const;

/**
 * The top bar: which workspace (switchable in open mode: there is no list of workspaces, each is isolated), who
 * the page acts as, and the connection state.
 */
export const headerView = (state: DashboardState) => {
  const { identity } = state;
  const pill = h('span', { id: 'connection', class: 'pill', role: 'status', 'aria-live': 'polite' });
  const form = identity.token
    ? h('span', { class: 'ws' }, 'Workspace ', h('strong', {}, identity.workspace))
    : h(
        'form',
        { class: 'ws', method: 'get', action: '/dashboard' },
        h('label', { for: 'ws-input' }, 'Workspace'),
        h('input', { id: 'ws-input', name: 'workspace', value: identity.workspace, size: 16, autocomplete: 'off' }),
        h('input', { type: 'hidden', name: 'agent', value: identity.agentId }),
        h('input', { type: 'hidden', name: 'role', value: identity.role }),
        h('button', { type: 'submit' }, 'Open'),
      );
  const el = h(
    'header',
    { class: 'top' },
    h('h1', {}, 'PlanHub'),
    form,
    h('span', { class: 'who' }, `${identity.agentId} · ${identity.role}`),
    pill,
  );
  return {
    el,
    update() {
      pill.className = `pill ${state.status}`;
      pill.textContent =
        LABEL[state.status] + (state.status === 'refused' && state.statusDetail ? `: ${state.statusDetail}` : '');
      pill.title = state.statusDetail ?? '';
    },
  };
};
