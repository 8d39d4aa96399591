import type { Plan } from '@planhub/shared';
import { numericStepId } from './mode.ts';

type Note = string | Record<string, unknown>;

const noteText = (note: Note): string =>
  typeof note === 'string'
    ? note
    : Object.entries(note)
        .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join('; ');

const section = (title: string, items: readonly Note[] | undefined): string[] =>
  items && items.length > 0 ? [`## ${title}`, '', ...items.map((i) => `- ${noteText(i)}`), ''] : [];

const STATUS_MARK: Record<string, string> = { completed: 'x', skipped: '-', failed: '!' };

/** The plan as Markdown, for the user who decides it (plan_exit's answer, the dashboard). Pure. */
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
    return [
      `${numericStepId(s) ?? s.id}. [${STATUS_MARK[s.status] ?? ' '}] ${s.description}`,
      ...(d.files?.length ? [`   - files: ${d.files.join(', ')}`] : []),
      ...(d.depends_on?.length ? [`   - depends on: ${d.depends_on.join(', ')}`] : []),
      ...(d.verification ? [`   - verify: ${d.verification}`] : []),
    ];
  });
  return [
    `# Plan ${plan.plan_id}: ${details.goal ?? plan.title}`,
    '',
    ...(p.summary ? [`**Summary:** ${p.summary}`, ''] : []),
    ...(p.approach ? [`**Approach:** ${p.approach}`, ''] : []),
    ...(p.estimated_complexity ? [`**Estimated complexity:** ${p.estimated_complexity}`, ''] : []),
    '## Steps',
    '',
    ...steps,
    '',
    ...section('Alternatives considered', p.alternatives_considered),
    ...section('Risks', p.risks),
    ...section('Files to create', p.files_to_create),
    ...section('Files to modify', p.files_to_modify),
    ...section('Tests to write', p.tests_to_write),
  ]
    .join('\n')
    .trimEnd();
};
