import type { Step, StepStatus } from '@planhub/shared';
import { StepStatusSchema } from '@planhub/shared';

/** What a step change needs of the plan's other steps: their order, status and description (seed 000's answers). */
export type StepBrief = Pick<Step, 'id' | 'step_id' | 'sequence' | 'description' | 'status'>;

export const encodeBrief = (step: Pick<Step, 'status' | 'sequence' | 'description'>): string =>
  JSON.stringify([step.status, step.sequence, step.description]);

// A plan's every brief is decoded on each step change: a set lookup, not a schema parse per brief.
const STATUSES: ReadonlySet<unknown> = new Set(StepStatusSchema.options);
const isStatus = (value: unknown): value is StepStatus => STATUSES.has(value);

/** A stored brief as a step stand-in, or undefined when it is not one (the caller then reads the whole plan). */
export const decodeBrief = (id: string, raw: string | undefined): StepBrief | undefined => {
  if (raw === undefined) return undefined;
  try {
    const value = JSON.parse(raw) as unknown;
    if (!Array.isArray(value) || value.length !== 3) return undefined;
    const [status, sequence, description] = value as [unknown, unknown, unknown];
    if (!isStatus(status) || typeof sequence !== 'number' || typeof description !== 'string') return undefined;
    return { id, step_id: id, sequence, description, status };
  } catch {
    return undefined;
  }
};
