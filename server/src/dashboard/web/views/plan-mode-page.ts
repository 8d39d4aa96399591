import type { PlanModeNote, ToolResult } from '@planhub/shared';
import { planModeNoteText } from '@planhub/shared';
import { h } from '../dom.ts';
import { modeStep } from './plan-mode-text.ts';

/** getPlanStatus's answer, as plan-page.ts names it (imported from there, it would make an import cycle). */
type PlanView = ToolResult<'getPlanStatus'>;

const row = (label: string, ...value: (Node | string | null)[]) =>
  h('div', { class: 'kv' }, h('dt', {}, label), h('dd', {}, ...value));

/** A list in full, or upstream's words for an empty one ("None identified"), as plan_exit's markdown writes it. */
const list = (items: readonly PlanModeNote[], none: string): Node | string =>
  items.length ? h('ul', {}, ...items.map((item) => h('li', {}, planModeNoteText(item)))) : none;

/**
 * A 002 plan's page: the plan object its agent submitted, every text in full (the approval card cuts them short and
 * links here). Nothing for a plan of another dialect.
 */
export const planModeSection = (plan: PlanView): Node[] => {
  const mode = plan.plan_mode;
  if (!mode) return [];
  return [
    h('h3', { id: 'plan-mode-h' }, 'As submitted for approval'),
    h(
      'dl',
      { class: 'facts plan-mode-full' },
      row('Goal', mode.goal),
      mode.scope ? row('Scope', mode.scope) : null,
      row('Summary', mode.summary || '—'),
      row('Approach', h('div', { class: 'prose' }, mode.approach || '—')),
      row('Alternatives considered', list(mode.alternatives_considered, 'None considered')),
      row('Risks', list(mode.risks, 'None identified')),
      row('Files to create', list(mode.files_to_create, 'None')),
      row('Files to modify', list(mode.files_to_modify, 'None')),
      row('Tests to write', list(mode.tests_to_write, 'None')),
      row('Estimated complexity', mode.estimated_complexity),
    ),
    // The steps follow under their own heading, not under this one's.
    h('h3', { id: 'plan-steps-h' }, 'Steps'),
  ];
};

/** Under a step's line on the plan page: the files it touches and how it is verified, when the plan gave them. */
export const planModeStepNote = (plan: PlanView, stepId: string): HTMLElement | null => {
  const fields = modeStep(plan.plan_mode, stepId);
  if (!fields || (fields.files.length === 0 && !fields.verification)) return null;
  return h(
    'div',
    { class: 'step-mode muted small' },
    fields.files.length ? h('div', {}, `Files: ${fields.files.join(', ')}`) : null,
    fields.verification ? h('div', {}, 'Verify: ', h('code', {}, fields.verification)) : null,
  );
};

/** The step page's facts of a 002 step: its files and its verification, as the plan (or a decided change) set them. */
export const planModeStepRows = (plan: PlanView, stepId: string): Node[] => {
  const fields = modeStep(plan.plan_mode, stepId);
  if (!fields) return [];
  return [
    row('Files', fields.files.length ? h('ul', {}, ...fields.files.map((f) => h('li', {}, f))) : 'None listed'),
    row('Verification', fields.verification ? h('code', {}, fields.verification) : 'None given'),
  ];
};
