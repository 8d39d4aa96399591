import type { Plan, PlanModeNote, PlanModeView } from '@planhub/shared';
import { planModeNoteText } from '@planhub/shared';
import { numericStepId } from './mode.ts';
import { planModeView } from './plan-mode-view.ts';

/** A list as upstream prints it: a bullet per item, or its one line for none. */
const bullets = (items: readonly PlanModeNote[] | undefined, none: string): string =>
  items?.length ? items.map((i) => `- ${planModeNoteText(i)}`).join('\n') : `- ${none}`;

/** What the Markdown prints of a 002 plan object (PlanModeView is loose: its named fields, picked). */
type PlanObject = Pick<
  PlanModeView,
  | 'goal'
  | 'summary'
  | 'approach'
  | 'alternatives_considered'
  | 'risks'
  | 'files_to_create'
  | 'files_to_modify'
  | 'tests_to_write'
  | 'estimated_complexity'
>;

const STATUS_MARK: Record<string, string> = { completed: 'x', skipped: '-', failed: '!' };

/** Upstream writes "Pending Approval" while the user decides; the other statuses read as they are named. */
const STATUS_LABEL: Record<string, string> = {
  pending: 'Pending Approval',
  awaiting_approval: 'Pending Approval',
  in_progress: 'Approved',
};

const statusLabel = (status: string): string =>
  STATUS_LABEL[status] ?? status.charAt(0).toUpperCase() + status.slice(1).replace(/_/g, ' ');

/**
 * The plan as Markdown, for the user who decides it (plan_exit's answer, the dashboard), laid out as upstream's plan
 * files are: every section in its order even when empty ("- None considered", "- None", "- None identified"), each
 * step with its Files, Depends on and Verify lines ("(none)" and an em dash when unset). Hosts and users tuned on
 * Triggerfish's plan files look for them. A step's box is checked once it ended (upstream's file was written before
 * any). Pure.
 */
export const renderPlanMarkdown = (plan: Plan): string => {
  // One reader of the stored plan object, the one getPlanStatus's plan_mode uses; a plan without one prints empty.
  const view = planModeView(plan);
  const p: PlanObject = view ?? {
    goal: plan.title,
    summary: '',
    approach: '',
    alternatives_considered: [],
    risks: [],
    files_to_create: [],
    files_to_modify: [],
    tests_to_write: [],
    estimated_complexity: '',
  };
  const steps = plan.steps.map((s, i) => {
    const d = view?.steps[i];
    // Plan mode's own dependencies by step number; a step another dialect added may wait on other agents' steps,
    // which the dash must not deny.
    const waitsOn = d?.depends_on.length
      ? d.depends_on.map((n) => `Step ${n}`)
      : (s.depends_on ?? []).map((ref) => `${ref.agent_id}'s ${ref.step_id}`);
    return [
      `- [${STATUS_MARK[s.status] ?? ' '}] **Step ${numericStepId(s) ?? s.id}:** ${s.description}`,
      `  - Files: ${d?.files.length ? d.files.join(', ') : '(none)'}`,
      `  - Depends on: ${waitsOn.length > 0 ? waitsOn.join(', ') : '—'}`,
      `  - Verify: \`${d?.verification || '(none)'}\``,
    ].join('\n');
  });
  return [
    `# Implementation Plan: ${p.goal}`,
    '',
    `**Status:** ${statusLabel(plan.status)}`,
    `**Created:** ${plan.created_at}`,
    `**Plan ID:** ${plan.plan_id}`,
    '',
    `## Summary\n${p.summary}`,
    '',
    `## Approach\n${p.approach}`,
    '',
    `## Alternatives Considered\n${bullets(p.alternatives_considered, 'None considered')}`,
    '',
    `## Steps\n\n${steps.join('\n\n')}`,
    '',
    '## Files Affected',
    `- **Create:**\n${bullets(p.files_to_create, 'None')}`,
    `- **Modify:**\n${bullets(p.files_to_modify, 'None')}`,
    `- **Tests:**\n${bullets(p.tests_to_write, 'None')}`,
    '',
    `## Risks\n${bullets(p.risks, 'None identified')}`,
    '',
    `## Estimated Complexity\n${p.estimated_complexity}`,
    '',
  ].join('\n');
};
