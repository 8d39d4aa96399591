import type { PlanModeView, StepSummary } from '@planhub/shared';
import { planModeNoteText } from '@planhub/shared';
import { h } from '../dom.ts';
import type { PlanDetails } from '../plan-details.ts';
import { href } from '../router.ts';
import type { DashboardState } from '../state.ts';
import { clip, count, firstOf, modeStep } from './plan-mode-text.ts';

/** How much of each text a card shows: enough to judge the plan at a glance; its page has all of it. */
const APPROACH_CHARS = 280;
const NOTE_CHARS = 160;
const VERIFY_CHARS = 100;
const RISKS_SHOWN = 4;
const FILES_SHOWN = 6;

interface PlanModeCardInput {
  planId: string;
  title: string;
  steps: readonly StepSummary[];
}

/** Collects whether anything a card shows was cut, so it can say so beside its link to the whole plan. */
class Cuts {
  any = false;
  text(value: string, max: number): string {
    const clipped = clip(value, max);
    this.any ||= clipped.cut;
    return clipped.text;
  }
  list(items: readonly string[], max: number): string {
    const { shown, more } = firstOf(items, max);
    this.any ||= more > 0;
    return shown.join(', ') + (more > 0 ? `, and ${more} more` : '');
  }
}

const row = (label: string, ...value: (Node | string | null)[]) =>
  h('div', { class: 'kv' }, h('dt', {}, label), h('dd', {}, ...value));

const filesLine = (mode: PlanModeView, cuts: Cuts): (Node | string)[] => {
  const parts = [
    ['Create', mode.files_to_create],
    ['Modify', mode.files_to_modify],
  ] as const;
  const listed = parts.filter(([, files]) => files.length > 0);
  if (listed.length === 0) return ['None listed'];
  return listed.map(([label, files]) => h('div', {}, `${label}: ${cuts.list(files, FILES_SHOWN)}`));
};

const risksList = (mode: PlanModeView, cuts: Cuts): Node | string => {
  if (mode.risks.length === 0) return 'None identified';
  const { shown, more } = firstOf(mode.risks, RISKS_SHOWN);
  if (more > 0) cuts.any = true;
  return h(
    'ul',
    {},
    ...shown.map((risk) => h('li', {}, cuts.text(planModeNoteText(risk), NOTE_CHARS))),
    more > 0 ? h('li', { class: 'muted' }, `and ${more} more`) : null,
  );
};

/** A step line with the files it touches and how it is verified, each on its own line under it. */
const stepItem = (step: StepSummary, mode: PlanModeView, cuts: Cuts): HTMLElement => {
  const fields = modeStep(mode, step.id);
  const files = fields?.files ?? [];
  return h(
    'li',
    { 'data-step-id': step.id },
    `${step.id}: ${step.description}`,
    files.length ? h('div', { class: 'step-files' }, `Files: ${cuts.list(files, FILES_SHOWN)}`) : null,
    fields?.verification
      ? h('div', { class: 'step-verify' }, 'Verify: ', h('code', {}, cuts.text(fields.verification, VERIFY_CHARS)))
      : null,
  );
};

/**
 * What a 002 plan's approval card shows of the plan its agent submitted, in place of the bare step list: the
 * approach, risks, files, complexity, each step's files and verification, cut to a glance, and a link to the plan's
 * page where all of it (with the alternatives and the tests) stands in full. Until it is read, the steps alone.
 */
export const planModeCardParts = (state: DashboardState, c: PlanModeCardInput, details: PlanDetails): Node[] => {
  const link = (text: string) =>
    h('a', { href: href(state.identity.workspace, { view: 'plan', planId: c.planId }) }, text);
  const plainSteps = c.steps.length
    ? [h('ol', { class: 'brief' }, ...c.steps.map((s) => h('li', {}, `${s.id}: ${s.description}`)))]
    : [];
  if (details.state === 'loading')
    return [h('p', { class: 'muted small' }, 'Reading the plan’s approach, risks and files…'), ...plainSteps];
  if (details.state === 'failed')
    return [
      h(
        'p',
        { class: 'error small', 'data-plan-mode': 'failed' },
        `The plan’s approach, risks and files could not be read (${details.error}). Read them on `,
        link(`the page of “${c.title}”`),
        ' before deciding.',
      ),
      ...plainSteps,
    ];
  const mode = details.mode;
  if (!mode) return plainSteps;
  const cuts = new Cuts();
  const facts = h(
    'dl',
    { class: 'plan-mode' },
    row('Approach', mode.approach ? cuts.text(mode.approach, APPROACH_CHARS) : '—'),
    row('Risks', risksList(mode, cuts)),
    row('Files', ...filesLine(mode, cuts)),
    row('Complexity', mode.estimated_complexity),
  );
  const steps = h('ol', { class: 'brief' }, ...c.steps.map((s) => stepItem(s, mode, cuts)));
  const extras = [
    mode.alternatives_considered.length
      ? count(mode.alternatives_considered.length, 'alternative considered', 'alternatives considered')
      : null,
    mode.tests_to_write.length ? count(mode.tests_to_write.length, 'test to write', 'tests to write') : null,
  ].filter((x): x is string => x !== null);
  return [
    facts,
    steps,
    h(
      'p',
      { class: 'small', 'data-plan-mode': cuts.any ? 'cut' : 'whole' },
      cuts.any ? 'Some of it is cut short here. ' : '',
      link(`All of “${c.title}”`),
      extras.length ? `, with its ${extras.join(' and ')}` : '',
      ', on its page.',
    ),
  ];
};
