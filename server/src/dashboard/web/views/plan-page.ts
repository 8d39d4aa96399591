import type { StepView, TaskEvent, ToolResult } from '@planhub/shared';
import { ENDED_STEP_STATUSES } from '@planhub/shared';
import { h, timeOf } from '../dom.ts';
import { href } from '../router.ts';
import type { DashboardState } from '../state.ts';
import { feedItem } from './feed.ts';
import { planModeSection, planModeStepNote } from './plan-mode-page.ts';
import { stepTook } from './running.ts';
import { planBadge, statusBadge, unblockedMark } from './status-badges.ts';

export type PlanView = ToolResult<'getPlanStatus'>;

/** What the plan and step pages read from the server: the full plan (outputs included) and its events. */
export interface PlanPageData {
  planId: string;
  plan?: PlanView;
  events: TaskEvent[];
  /** Set when the search for its events stopped before the oldest log entry kept: how many entries it looked at. */
  searchStoppedAfter?: number;
  error?: string;
  /** Set while a read refused for the page's rate waits to be tried again: what the person is told meanwhile. */
  waiting?: string;
}

/** Says that older events of the plan may exist beyond what was searched; nothing when the whole log was. */
export const searchNote = (data: PlanPageData): HTMLElement | null =>
  data.searchStoppedAfter === undefined
    ? null
    : h(
        'p',
        { class: 'muted small', 'data-search': 'stopped' },
        `Only the newest ${data.searchStoppedAfter} log entries were searched; ` +
          'older events of this plan are not shown.',
      );

/** Plans longer than this show their finished steps folded into one line. */
const FOLD_AFTER = 12;

export const stepLine = (state: DashboardState, plan: PlanView, step: StepView): HTMLElement => {
  return h(
    'li',
    { class: `step status-${step.status}`, 'data-step-id': step.id, 'data-status': step.status },
    h('span', { class: 'sid' }, step.id),
    h(
      'a',
      { class: 'desc', href: href(state.identity.workspace, { view: 'step', planId: plan.plan_id, stepId: step.id }) },
      step.description,
    ),
    statusBadge(step.status),
    unblockedMark(step),
    stepTook(step, Date.now(), { class: 'muted small' }),
    planModeStepNote(plan, step.id),
  );
};

export const backLink = (state: DashboardState) =>
  h('a', { class: 'back', href: href(state.identity.workspace, { view: 'overview' }) }, '← Workspace');

/** A plan's page: header, progress, its steps (finished ones folded on a long plan) and its events. */
export const planPage = (state: DashboardState, data: PlanPageData | undefined): Node[] => {
  if (!data?.plan)
    return [
      backLink(state),
      h('p', { class: data?.error ? 'error' : 'muted' }, data?.error ?? data?.waiting ?? 'Loading the plan…'),
      // A plan the server no longer keeps: what the log still holds of it.
      ...(data && data.events.length > 0 ? [eventsSection(state, data)] : []),
    ];
  const plan = data.plan;
  const finished = plan.steps.filter((s) => ENDED_STEP_STATUSES.has(s.status) && s.status !== 'failed');
  const fold = plan.steps.length > FOLD_AFTER && finished.length > 0;
  const open = fold ? plan.steps.filter((s) => !finished.includes(s)) : plan.steps;
  const { completed, total, percentage } = plan.progress;
  return [
    backLink(state),
    h(
      'section',
      { class: 'panel page', 'aria-labelledby': 'page-h', 'data-plan-id': plan.plan_id, 'data-status': plan.status },
      h('h2', { id: 'page-h', tabindex: -1 }, plan.title),
      h(
        'p',
        { class: 'muted small' },
        planBadge(plan.status),
        ` ${plan.agent_id} · ${plan.plan_id} · ${completed}/${total} done (${percentage}%)`,
      ),
      ...planModeSection(plan),
      fold
        ? h(
            'details',
            { class: 'folded', 'data-folded': finished.length },
            h('summary', {}, `${finished.length} finished step${finished.length === 1 ? '' : 's'}`),
            h('ol', { class: 'steps' }, ...finished.map((s) => stepLine(state, plan, s))),
          )
        : null,
      h('ol', { class: 'steps', 'aria-label': `Steps of ${plan.title}` }, ...open.map((s) => stepLine(state, plan, s))),
    ),
    eventsSection(state, data),
  ];
};

const eventsSection = (state: DashboardState, data: PlanPageData) =>
  h(
    'section',
    { class: 'panel', 'aria-labelledby': 'plan-events-h' },
    h('h2', { id: 'plan-events-h' }, 'Events of this plan'),
    data.events.length
      ? h('ol', { class: 'feed' }, ...[...data.events].reverse().map((e) => feedItem(e, state.identity.workspace)))
      : h('p', { class: 'muted' }, 'No events of this plan in the log.'),
    searchNote(data),
  );

export const when = (iso: string | undefined) => (iso ? timeOf(iso) : '—');
