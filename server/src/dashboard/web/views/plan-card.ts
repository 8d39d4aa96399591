import type { PlanSummary, StepSummary } from '@planhub/shared';
import { ENDED_STEP_STATUSES } from '@planhub/shared';
import { domId, h } from '../dom.ts';
import { href } from '../router.ts';
import type { DashboardState } from '../state.ts';
import { openDependencies } from './dependency-state.ts';
import { planBadge, statusBadge, unblockedMark } from './status-badges.ts';

/** Plans longer than this fold their finished steps into one line; the plan's page lists them all. */
const FOLD_AFTER = 12;

const MARK: Record<StepSummary['status'], string> = {
  completed: '✓',
  in_progress: '▶',
  pending: '○',
  failed: '✗',
  skipped: '–',
  blocked: '~',
};

const percent = (plan: PlanSummary): string => {
  const p = plan.progress.percentage;
  return `${Number.isInteger(p) ? p : p.toFixed(1)}%`;
};

const progressText = (plan: PlanSummary): string => {
  const { completed, total, failed, skipped, blocked, in_progress } = plan.progress;
  const extra = [
    in_progress ? `${in_progress} in progress` : '',
    blocked ? `${blocked} blocked` : '',
    failed ? `${failed} failed` : '',
    skipped ? `${skipped} skipped` : '',
  ].filter(Boolean);
  return [`${completed}/${total} done (${percent(plan)})`, ...extra].join(' · ');
};

export const progressBar = (plan: PlanSummary): HTMLElement => {
  const fill = h('span', { class: 'fill' });
  fill.style.width = `${Math.min(100, plan.progress.percentage)}%`;
  return h(
    'div',
    {
      class: 'progress',
      role: 'progressbar',
      'aria-valuemin': 0,
      'aria-valuemax': 100,
      'aria-valuenow': plan.progress.percentage,
      'aria-label': `Progress of ${plan.title}`,
    },
    fill,
  );
};

const stepItem = (state: DashboardState, plan: PlanSummary, step: StepSummary): HTMLElement => {
  const flash = state.flashing(plan.plan_id, step.id);
  const waits = openDependencies(step, plan);
  return h(
    'li',
    {
      class: `step status-${step.status}${flash ? ' flash' : ''}`,
      'data-step-id': step.id,
      'data-status': step.status,
    },
    h('span', { class: 'mark', 'aria-hidden': 'true' }, MARK[step.status]),
    h('span', { class: 'sid' }, step.id),
    h(
      'a',
      { class: 'desc', href: href(state.identity.workspace, { view: 'step', planId: plan.plan_id, stepId: step.id }) },
      step.description,
    ),
    statusBadge(step.status),
    unblockedMark(step),
    step.stalled ? h('span', { class: 'badge stalled' }, 'stalled') : null,
    waits.length > 0
      ? h('span', { class: 'waits' }, `waits on ${waits.map((d) => `${d.agent_id}:${d.step_id}`).join(', ')}`)
      : null,
    step.error
      ? h('span', { class: 'note error' }, step.error)
      : step.result
        ? h('span', { class: 'note' }, step.result)
        : null,
  );
};

const stepLists = (state: DashboardState, plan: PlanSummary): HTMLElement[] => {
  const done = plan.steps.filter((s) => ENDED_STEP_STATUSES.has(s.status) && s.status !== 'failed');
  const fold = plan.steps.length > FOLD_AFTER && done.length > 0;
  const rest = fold ? plan.steps.filter((s) => !done.includes(s)) : plan.steps;
  const list = h(
    'ol',
    { class: 'steps', 'aria-label': `Steps of ${plan.title}` },
    ...rest.map((s) => stepItem(state, plan, s)),
  );
  if (!fold) return [list];
  return [
    h(
      'p',
      { class: 'folded muted small', 'data-folded': done.length },
      `${done.length} finished steps folded · `,
      h('a', { href: href(state.identity.workspace, { view: 'plan', planId: plan.plan_id }) }, 'all steps'),
    ),
    list,
  ];
};

/** One plan: status, progress bar, and every step with its status; finished plans fold away. */
export const planCard = (state: DashboardState, plan: PlanSummary, current: boolean): HTMLElement => {
  const headingId = domId('plan', plan.plan_id);
  const body = [progressBar(plan), h('p', { class: 'progress-text' }, progressText(plan)), ...stepLists(state, plan)];
  const page = href(state.identity.workspace, { view: 'plan', planId: plan.plan_id });
  const headOf = (title: Node | string) =>
    h(
      'div',
      { class: 'plan-head' },
      h('h4', { id: headingId }, title),
      planBadge(plan.status),
      h(
        'span',
        { id: `${headingId}--meta`, class: 'muted small' },
        `${plan.plan_id} · ${plan.dialect}${current ? ' · current' : ''}`,
      ),
    );
  const head = headOf(h('a', { href: page }, plan.title));
  const finished = ['completed', 'failed', 'cancelled', 'rejected'].includes(plan.status);
  if (!finished || current)
    return h(
      'section',
      // Named by title and plan id: two agents' plans may share a title, and landmarks must differ by name.
      {
        class: 'plan',
        'data-plan-id': plan.plan_id,
        'data-status': plan.status,
        'aria-labelledby': `${headingId} ${headingId}--meta`,
      },
      head,
      ...body,
    );
  const details = h(
    'details',
    {
      class: 'plan finished',
      'data-plan-id': plan.plan_id,
      'data-status': plan.status,
      open: state.expanded.has(plan.plan_id),
    },
    // The summary is the fold's own control: a link inside it is an interactive element within another (axe's
    // nested-interactive), which a screen reader announces ambiguously. The link to the plan's page opens with it.
    h('summary', {}, headOf(plan.title)),
    h('p', { class: 'small' }, h('a', { href: page, class: 'plan-link' }, `Open the page of ${plan.title}`)),
    ...body,
  );
  details.addEventListener('toggle', () => {
    if ((details as HTMLDetailsElement).open) state.expanded.add(plan.plan_id);
    else state.expanded.delete(plan.plan_id);
  });
  return details;
};
