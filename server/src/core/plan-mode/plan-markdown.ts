import type { Plan } from '@planhub/shared';
import { numericStepId } from './mode.ts';

type Note = string | Record<string, unknown>;

const noteText = (note: Note): string =>
  typeof note === 'string'
    ? note
    : Object.entries(note)
        .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join('; ');

const section = (title: string, body: readonly string[]): string[] =>
  body.length > 0 ? [`## ${title}`, '', ...body, ''] : [];

const bullets = (items: readonly Note[] | undefined): string[] => (items ?? []).map((i) => `- ${noteText(i)}`);

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
 * The plan as Markdown, for the user who decides it (plan_exit's answer, the dashboard), in upstream's section order
 * and headings: hosts and users tuned on Triggerfish's plan files look for "Implementation Plan:" and its sections. Pure.
 */
export const renderPlanMarkdown = (plan: Plan): string => {
  const details = (plan.details ?? {}) as {
    goal?: string;
    plan?: {
      summary?: string;
      approach?: string;
      alternatives_considered?: Note[];
      risks?: Note[];
      files_to_create?: string[];
      files_to_modify?: string[];
      tests_to_write?: Note[];
      estimated_complexity?: string;
    };
  };
  const p = details.plan ?? {};
  const steps = plan.steps.flatMap((s) => {
    const d = (s.details ?? {}) as { files?: string[]; depends_on?: number[]; verification?: string };
    // Plan mode's own dependencies by step number; a step another dialect added may wait on other agents' steps,
    // which the dash must not deny.
    const waitsOn = d.depends_on?.length
      ? d.depends_on.map((n) => `Step ${n}`)
      : (s.depends_on ?? []).map((ref) => `${ref.agent_id}'s ${ref.step_id}`);
    return [
      `- [${STATUS_MARK[s.status] ?? ' '}] **Step ${numericStepId(s) ?? s.id}:** ${s.description}`,
      ...(d.files?.length ? [`  Files: ${d.files.join(', ')}`] : []),
      // Upstream prints the line for every step, with an em dash when the step waits on none.
      `  Depends on: ${waitsOn.length > 0 ? waitsOn.join(', ') : '—'}`,
      ...(d.verification ? [`  Verify: \`${d.verification}\``] : []),
    ];
  });
  const files = [
    ...(p.files_to_create?.length ? [`- Create: ${p.files_to_create.join(', ')}`] : []),
    ...(p.files_to_modify?.length ? [`- Modify: ${p.files_to_modify.join(', ')}`] : []),
    ...(p.tests_to_write?.length ? [`- Tests: ${p.tests_to_write.map(noteText).join(', ')}`] : []),
  ];
  return [
    `# Implementation Plan: ${details.goal ?? plan.title}`,
    '',
    `**Status:** ${statusLabel(plan.status)}`,
    `**Created:** ${plan.created_at}`,
    `**Plan ID:** ${plan.plan_id}`,
    '',
    ...section('Summary', p.summary ? [p.summary] : []),
    ...section('Approach', p.approach ? [p.approach] : []),
    ...section('Alternatives Considered', bullets(p.alternatives_considered)),
    ...section('Steps', steps),
    ...section('Files Affected', files),
    ...section('Risks', bullets(p.risks)),
    ...section('Estimated Complexity', p.estimated_complexity ? [p.estimated_complexity] : []),
  ]
    .join('\n')
    .trimEnd();
};
