import { domId, h, replaceKeepingFocus, timeOf } from '../dom.ts';
import type { Decision } from '../decide.ts';
import type { PlanDetailsSource } from '../plan-details.ts';
import type { DashboardState } from '../state.ts';
import { planModeCardParts } from './plan-mode-card.ts';

export interface DecisionActions {
  decide(decision: Decision): void;
  /** The 002 plan objects of plans waiting for approval (plan-details.ts). */
  planDetails: PlanDetailsSource;
}

/**
 * How to open a page that may decide. A decision is recorded under the page's agent name, so the hint asks for the
 * person's own: without one the page takes a random "dashboard-…" name that tells no one who approved.
 */
const readOnlyHint = (state: DashboardState): (Node | string)[] =>
  state.identity.token
    ? ['Read-only view: to approve or reject, open the dashboard with a link whose token names you with the user role.']
    : [
        'Read-only view: to approve or reject, open the dashboard as yourself: ',
        h('code', {}, `?workspace=${encodeURIComponent(state.identity.workspace)}&agent=<your name>&role=user`),
      ];

/** Cards for plans waiting for a person, with Approve / Reject for user clients. */
export const approvalsView = (state: DashboardState, actions: DecisionActions): Node[] => {
  const snapshot = state.model.snapshot;
  if (!snapshot) return [];
  const cards: HTMLElement[] = [];
  for (const agent of snapshot.agents) {
    for (const pending of agent.pending_approvals) {
      const plan = agent.plans.find((p) => p.plan_id === pending.plan_id);
      // A 002 plan was submitted with an approach, risks, files and verification: the person approves all of it.
      const body =
        plan?.dialect === '002'
          ? planModeCardParts(
              state,
              { planId: pending.plan_id, title: pending.title, steps: plan.steps },
              actions.planDetails.want(pending.plan_id),
            )
          : undefined;
      cards.push(
        card(state, actions, {
          planId: pending.plan_id,
          kind: 'approval',
          title: pending.title,
          agentId: pending.agent_id,
          message: pending.message,
          at: pending.requested_at,
          lines: plan?.steps.map((s) => `${s.id}: ${s.description}`) ?? [],
          ...(body ? { body } : {}),
        }),
      );
    }
    for (const mod of agent.pending_modifications) {
      const plan = agent.plans.find((p) => p.plan_id === mod.plan_id);
      cards.push(
        card(state, actions, {
          planId: mod.plan_id,
          kind: 'modification',
          title: plan?.title ?? mod.plan_id,
          agentId: mod.agent_id,
          message: mod.reason,
          at: mod.requested_at,
          lines: [
            `Step ${mod.step_id} becomes: ${mod.new_description}`,
            ...(mod.new_files?.length ? [`Files: ${mod.new_files.join(', ')}`] : []),
            ...(mod.new_verification ? [`Verification: ${mod.new_verification}`] : []),
          ],
        }),
      );
    }
  }
  if (cards.length === 0) return [h('p', { class: 'muted' }, 'Nothing is waiting for a decision.')];
  return cards;
};

interface CardInput {
  planId: string;
  kind: 'approval' | 'modification';
  title: string;
  agentId: string;
  message: string | null;
  at: string;
  lines: string[];
  /** Shown in place of `lines` when set: a 002 plan's submitted plan object (plan-mode-card.ts). */
  body?: Node[];
}

const card = (state: DashboardState, actions: DecisionActions, c: CardInput): HTMLElement => {
  const base = domId(c.kind, c.planId);
  const reasonId = `${base}--reason`;
  const busy = state.deciding.has(c.planId);
  // Marked while the page is not live: a press then sends nothing, and says so (decide.ts).
  const offline = state.status !== 'live';
  const offlineId = `${base}--offline`;
  // Marked, not disabled, while the decision is in flight: a disabled button cannot hold the focus, and the keyboard
  // user who pressed it would be dropped to the top of the page.
  const what = c.kind === 'approval' ? 'plan' : 'modification of plan';
  const decide = (approve: boolean) => () => {
    // Read when pressed: the card a press reaches may be older than the render that marked the decision in flight.
    if (state.deciding.has(c.planId)) return;
    const input = document.getElementById(reasonId) as HTMLInputElement | null;
    actions.decide({
      planId: c.planId,
      title: c.title,
      approve,
      reason: input?.value.trim() ?? '',
      modification: c.kind === 'modification',
    });
  };
  return h(
    'article',
    { class: `approval ${c.kind}`, 'data-plan-id': c.planId, 'aria-labelledby': `${base}--title` },
    h('h3', { id: `${base}--title` }, c.kind === 'approval' ? c.title : `Change to: ${c.title}`),
    h('p', { class: 'muted small' }, `${c.agentId} · ${c.planId}${c.at ? ` · ${timeOf(c.at)}` : ''}`),
    c.message ? h('blockquote', {}, c.message) : null,
    ...(c.body ?? [c.lines.length ? h('ol', { class: 'brief' }, ...c.lines.map((l) => h('li', {}, l))) : null]),
    state.canDecide
      ? h(
          'div',
          { class: 'decide' },
          h('label', { for: reasonId, class: 'small' }, 'Reason (sent with a rejection)'),
          h('input', { id: reasonId, type: 'text', maxlength: 2000, autocomplete: 'off' }),
          offline
            ? h(
                'p',
                { id: offlineId, class: 'muted small' },
                'Not connected: a decision can be sent once the page is live.',
              )
            : null,
          h(
            'div',
            { class: 'buttons' },
            h(
              'button',
              {
                id: `${base}--approve`,
                class: 'approve',
                type: 'button',
                'aria-disabled': busy || offline ? 'true' : undefined,
                'aria-describedby': offline ? offlineId : undefined,
                'aria-label': `Approve ${what} "${c.title}" of ${c.agentId}`,
                onclick: decide(true),
              },
              'Approve',
            ),
            h(
              'button',
              {
                id: `${base}--reject`,
                class: 'reject',
                type: 'button',
                'aria-disabled': busy || offline ? 'true' : undefined,
                'aria-describedby': offline ? offlineId : undefined,
                'aria-label': `Reject ${what} "${c.title}" of ${c.agentId}`,
                onclick: decide(false),
              },
              'Reject',
            ),
          ),
        )
      : h('p', { class: 'muted small read-only', 'data-hint': 'read-only' }, ...readOnlyHint(state)),
  );
};

/**
 * Renders the cards into `container`, keeping the focus in the section: when the card holding it leaves (decided
 * here or by someone else), the focus moves to the card now in its place (the last one if it was last), or to the
 * section's heading when no card is left, rather than dropping to the top of the page.
 */
export const replaceApprovals = (container: HTMLElement, nodes: Node[], heading: HTMLElement): void => {
  const active = document.activeElement;
  const from = active instanceof HTMLElement && container.contains(active) ? active.closest('article.approval') : null;
  const index = from ? Array.from(container.querySelectorAll('article.approval')).indexOf(from) : -1;
  replaceKeepingFocus(container, nodes);
  if (index < 0 || container.contains(document.activeElement)) return;
  const cards = container.querySelectorAll<HTMLElement>('article.approval');
  const next = cards[Math.min(index, cards.length - 1)];
  (next?.querySelector<HTMLElement>('button.approve') ?? heading).focus();
};
