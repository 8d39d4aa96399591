import { z } from 'zod';
import { MAX_DESCRIPTION, MAX_ID, MAX_RESULT, MAX_TITLE } from '../limits.ts';
import { PlanStatusSchema, ProgressSchema, StepSchema } from '../model.ts';

export const IdArg = z.string().min(1).max(MAX_ID);
export const TitleArg = z.string().trim().min(1, 'must not be empty').max(MAX_TITLE);
export const DescriptionArg = z.string().trim().min(1, 'must not be empty').max(MAX_DESCRIPTION);
export const ResultArg = z.string().max(MAX_RESULT);
export const PlanIdArg = IdArg.describe('The plan to act on; defaults to your current (most recent unfinished) plan.');

/** A step as tools return it: the stored step without dialect internals (`details`), with both `id` and `step_id`. */
export const StepViewSchema = StepSchema.omit({ details: true }).loose();
export type StepView = z.infer<typeof StepViewSchema>;

export const PlanViewSchema = z
  .object({
    plan_id: z.string(),
    agent_id: z.string(),
    title: z.string(),
    status: PlanStatusSchema,
    progress: ProgressSchema,
    steps: z.array(StepViewSchema),
    received_outputs: z.record(z.string(), z.unknown()),
  })
  .loose();
export type PlanView = z.infer<typeof PlanViewSchema>;
