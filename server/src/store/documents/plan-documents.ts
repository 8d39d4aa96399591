import { PlanSchema, StepSchema, WaiterSchema } from '@planhub/shared';
import { z } from 'zod';
import { docKeys } from '../keys.ts';
import { defineDocument } from './define.ts';

/**
 * A plan's header: the plan without its steps, and the order of their ids. `updated_at` is when the header itself
 * last changed; the plan's is the latest of it and its steps', so a step change never writes the header.
 */
export const PlanHeaderSchema = PlanSchema.omit({ steps: true, waiters: true }).extend({
  step_ids: z.array(z.string()),
  /** Same-plan waiters kept under an id that is not one of the plan's steps (none are written so; kept, not lost). */
  orphan_waiters: z.record(z.string(), z.array(WaiterSchema)).optional(),
});
export type PlanHeader = z.infer<typeof PlanHeaderSchema>;

/** One step of a plan, the steps of the same plan waiting on it, and when it last changed. */
export const PlanStepDocSchema = z.object({
  step: StepSchema,
  waiters: z.array(WaiterSchema),
  updated_at: z.string(),
});
export type PlanStepDoc = z.infer<typeof PlanStepDocSchema>;

/** What `plan:<id>` holds: a header, or a whole plan stored by the earlier layout (upgraded by its next write). */
export type StoredPlanRoot =
  { layout: 'header'; header: PlanHeader } | { layout: 'whole'; plan: z.infer<typeof PlanSchema> };

const isWhole = (raw: unknown): boolean =>
  typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'steps' in raw && !('step_ids' in raw);

const wholePlan = defineDocument({ name: 'plan', version: 1, key: docKeys.plan, schema: PlanSchema });
const header = defineDocument({ name: 'plan header', version: 2, key: docKeys.plan, schema: PlanHeaderSchema });

export const planDocuments = {
  /** `plan:<id>`, either layout; the shape tells which (a whole plan has `steps`, a header `step_ids`). */
  planRoot: {
    name: 'plan',
    version: 2,
    key: docKeys.plan,
    decode(key: string, raw: unknown): StoredPlanRoot | undefined {
      if (isWhole(raw)) {
        const plan = wholePlan.decode(key, raw);
        return plan && { layout: 'whole', plan };
      }
      const value = header.decode(key, raw);
      return value && { layout: 'header', header: value };
    },
  },
  planStep: defineDocument({ name: 'plan step', version: 1, key: docKeys.planStep, schema: PlanStepDocSchema }),
} as const;
