import type { DependencyRef, StepStatus, StepView } from '@planhub/shared';
import { ENDED_STEP_STATUSES, formatDuration, sameDependency, statusHistory } from '@planhub/shared';
import { h, timeOf } from '../dom.ts';
import { href } from '../router.ts';
import type { DashboardState } from '../state.ts';
import { feedItem } from './feed.ts';
import { runningDuration, stepTook } from './running.ts';
import { dependencyState, dependencyStateText, dependencyTarget, type DependencyState } from './dependency-state.ts';
import { backLink, searchNote, type PlanPageData, type PlanView } from './plan-page.ts';
import { planModeStepRows } from './plan-mode-page.ts';
import { isUnblocked, statusBadge, unblockedMark } from './status-badges.ts';

const json = (value: unknown, label: string, open: boolean) =>
  h(
    'details',
    { class: 'json', open },
    h('summary', {}, label),
    h('pre', { tabindex: 0 }, JSON.stringify(value, null, 2)),
  );

const depLink = (state: DashboardState, ref: DependencyRef, text: string) => {
  const target = state.model
    .agent(ref.agent_id)
    ?.plans.find((p) => (!ref.plan_id || p.plan_id === ref.plan_id) && p.steps.some((s) => s.id === ref.step_id));
  return target
    ? h(
        'a',
        { href: href(state.identity.workspace, { view: 'step', planId: target.plan_id, stepId: ref.step_id }) },
        text,
      )
    : h('span', {}, text);
};

/** Who delivered a received output: the dependency its key names (agent:step, or the name a step provides). */
const deliveredBy = (step: StepView, key: string): DependencyRef | undefined => {
  const [agent, stepId] = key.split(':');
  return step.depends_on?.find(
    (d) => (d.agent_id === agent && d.step_id === stepId) || key === `${d.agent_id}:${d.step_id}`,
  );
};

/**
 * The status a resolved dependency delivered: the received output's own, as the server handed it over (a rejected
 * plan's step arrives skipped while it stays pending), else as the overview shows the step.
 */
const deliveredStatus = (state: DashboardState, step: StepView, ref: DependencyRef): StepStatus | undefined => {
  const output = Object.entries(step.received_outputs ?? {}).find(([key]) => {
    const from = deliveredBy(step, key);
    return from !== undefined && sameDependency(from, ref);
  })?.[1];
  const received = (output as { status?: StepStatus } | undefined)?.status;
  if (received !== undefined && ENDED_STEP_STATUSES.has(received)) return received;
  const snapshot = state.model.snapshot;
  return snapshot && dependencyTarget(snapshot, ref)?.status;
};

/** How a dependency reads under "Waits on"; a step (or plan) that ended first gave it up, and says how it ended. */
const STEP_PAGE_DEPENDENCY: Record<
  DependencyState,
  (state: DashboardState, step: StepView, plan: PlanView, ref: DependencyRef) => string
> = {
  open: () => 'waiting',
  resolved: (state, step, plan, ref) => {
    const status = deliveredStatus(state, step, ref);
    return dependencyStateText('resolved', step, plan, status && { status });
  },
  'given-up': (_state, step, plan) => dependencyStateText('given-up', step, plan, undefined),
};

const row = (label: string, value: Node | string) => h('div', { class: 'kv' }, h('dt', {}, label), h('dd', {}, value));

/** One step: what it is, its status history with durations, what it produced and received, and who waits on it. */
export const stepPage = (state: DashboardState, data: PlanPageData | undefined, stepId: string): Node[] => {
  const plan: PlanView | undefined = data?.plan;
  const step = plan?.steps.find((s) => s.id === stepId);
  if (!plan || !step)
    return [
      backLink(state),
      h('p', { class: data?.error ? 'error' : 'muted' }, data?.error ?? data?.waiting ?? 'Loading the step…'),
    ];
  const ws = state.identity.workspace;
  const now = new Date().toISOString();
  const history = statusHistory(data?.events ?? [], plan.plan_id, step.id, now);
  const me = { agent_id: plan.agent_id, step_id: step.id, plan_id: plan.plan_id };
  const dependents = (state.model.snapshot?.agents ?? []).flatMap((a) =>
    a.plans.flatMap((p) =>
      p.steps
        .filter((s) => s.depends_on?.some((d) => sameDependency(d, me)))
        .map((s) => ({ agent: a.agent_id, plan: p, step: s })),
    ),
  );
  const received = Object.entries(step.received_outputs ?? {});
  return [
    backLink(state),
    h(
      'section',
      { class: 'panel page', 'aria-labelledby': 'page-h', 'data-step-id': step.id, 'data-status': step.status },
      h('h2', { id: 'page-h', tabindex: -1 }, `${step.id}: ${step.description}`),
      h(
        'p',
        { class: 'muted small' },
        statusBadge(step.status),
        ' ',
        unblockedMark(step),
        isUnblocked(step) ? ' ' : null,
        h('a', { href: href(ws, { view: 'plan', planId: plan.plan_id }) }, plan.title),
        ` · ${plan.agent_id}`,
      ),
      h(
        'dl',
        { class: 'facts' },
        row('Started', step.started_at ? timeOf(step.started_at) : '—'),
        row('Ended', step.completed_at ? timeOf(step.completed_at) : '—'),
        row('Took', stepTook(step, Date.parse(now)) ?? '—'),
        step.result ? row('Result', step.result) : null,
        step.error ? row('Error', h('span', { class: 'error' }, step.error)) : null,
        step.provides ? row('Provides', step.provides) : null,
        ...planModeStepRows(plan, step.id),
      ),
      h('h3', {}, 'Status history'),
      history.length
        ? h(
            'ol',
            { class: 'history' },
            ...history.map((p) =>
              h(
                'li',
                { 'data-status': p.status },
                h('time', { datetime: p.from }, timeOf(p.from)),
                ` ${p.status.replace('_', ' ')}`,
                p.ms === null
                  ? null
                  : p.until
                    ? h('span', { class: 'muted small' }, ` for ${formatDuration(p.ms)}`)
                    : h('span', { class: 'muted small' }, ' for ', runningDuration(p.from, Date.parse(now)), ' so far'),
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'No status events of this step in the retained log.'),
      data ? searchNote(data) : null,
      step.output ? json(step.output, 'Output', true) : null,
      h('h3', {}, 'Received outputs'),
      received.length
        ? h(
            'ul',
            { class: 'received' },
            ...received.map(([key, value]) => {
              const from = deliveredBy(step, key);
              return h(
                'li',
                { 'data-output': key },
                'From ',
                from ? depLink(state, from, `${from.agent_id} · ${from.step_id}`) : h('strong', {}, key),
                json(value, key, false),
              );
            }),
          )
        : h('p', { class: 'muted' }, 'Nothing received.'),
      h('h3', {}, 'Waits on'),
      step.depends_on?.length
        ? h(
            'ul',
            { class: 'deps' },
            ...step.depends_on.map((d) => {
              const dependency = dependencyState(step, plan, d);
              return h(
                'li',
                { class: dependency },
                depLink(state, d, `${d.agent_id} · ${d.step_id}`),
                ` — ${STEP_PAGE_DEPENDENCY[dependency](state, step, plan, d)}`,
              );
            }),
          )
        : h('p', { class: 'muted' }, 'No dependencies.'),
      h('h3', {}, 'Waited on by'),
      dependents.length
        ? h(
            'ul',
            { class: 'deps' },
            ...dependents.map((d) =>
              h(
                'li',
                {},
                h(
                  'a',
                  { href: href(ws, { view: 'step', planId: d.plan.plan_id, stepId: d.step.id }) },
                  `${d.agent} · ${d.step.id}: ${d.step.description}`,
                ),
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'No step waits on this one.'),
    ),
    h(
      'section',
      { class: 'panel', 'aria-labelledby': 'step-events-h' },
      h('h2', { id: 'step-events-h' }, 'Events of this step'),
      h(
        'ol',
        { class: 'feed' },
        ...(data?.events ?? [])
          .filter((e) => e.source_step_id === step.id)
          .reverse()
          .map((e) => feedItem(e, ws)),
      ),
    ),
  ];
};
