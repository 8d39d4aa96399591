import { z } from 'zod';
import { MAX_ARRAY } from '../limits.ts';
import { ProgressSchema } from '../model.ts';
import {
  DescriptionArg,
  IdArg,
  OptionalIdArg,
  OptionalPlanIdArg,
  PlanViewSchema,
  ResultArg,
  StepAnswerShape,
  StepTextArg,
  StepViewSchema,
  TitleArg,
} from './common.ts';
import { defineTool } from './define.ts';

const Instructed = { instruction: z.string(), warning: z.string().optional() };

export const createPlan = defineTool({
  name: 'createPlan',
  dialect: '000',
  readOnly: false,
  description:
    'Register an execution plan: a title and the ordered steps you intend to take. Use it before any multi-step ' +
    'task. The plan starts as "pending"; call startPlan next to ask the user for approval. You can have one started, ' +
    'unfinished plan at a time: to change course use addStep, mark steps skipped, or completePlan(status="failed").',
  input: z.object({
    title: TitleArg.describe('What the plan achieves, in a few words.'),
    // Upstream checks only that each step is a string, so an empty one is a step (with no description).
    steps: z.array(StepTextArg).min(1).max(MAX_ARRAY).describe('Ordered steps.'),
  }),
  output: z
    .object({
      plan_id: z.string(),
      title: z.string(),
      status: z.string(),
      steps: z.array(StepViewSchema),
      progress: ProgressSchema,
      message: z.string(),
    })
    .loose(),
});

export const startPlan = defineTool({
  name: 'startPlan',
  dialect: '000',
  readOnly: false,
  behaviour: { waitsForDecision: { unlessFalse: 'wait' }, requestsDecision: true, selfIdempotent: true },
  description:
    'Ask the user to approve your pending plan. The call returns when the user decides (approved: status ' +
    '"in_progress"; rejected: status "rejected" with the reason). Until then the plan waits in "awaiting_approval" ' +
    'and step updates are refused. Pass wait=false to return at once and learn the decision from events.',
  input: z.object({
    message: ResultArg.optional().describe('What you want the user to know when deciding.'),
    plan_id: OptionalPlanIdArg,
    wait: z.boolean().default(true).describe('Wait for the decision (default) or return at once.'),
  }),
  output: z
    .object({
      /** Upstream's: true once the plan is approved and running. */
      confirmed: z.boolean(),
      plan_id: z.string(),
      title: z.string(),
      status: z.string(),
      message: z.string(),
      steps: z.array(z.object({ step_id: z.string(), sequence: z.number().int(), description: z.string() })),
      reason: z.string().optional(),
    })
    .loose(),
});

export const setStepStatus = defineTool({
  name: 'setStepStatus',
  dialect: '000',
  readOnly: false,
  behaviour: { readsBeforeAdmission: true },
  description:
    'Report the honest outcome of a step. completed: FULLY accomplished. failed: the goal was NOT achieved for any ' +
    'reason (if your result says "could not", "unable to" or "failed to", use failed). skipped: no longer needed. ' +
    'in_progress: you are working on it now. A step that is blocked on other agents cannot be completed; it ' +
    'unblocks by itself, so wait for its step_unblocked event instead of polling.',
  input: z.object({
    step_id: IdArg.describe('e.g. "step_2"'),
    status: z
      .enum(['in_progress', 'completed', 'failed', 'skipped', 'pending', 'blocked'])
      .describe('pending and blocked change nothing (accepted for compatibility).'),
    result: ResultArg.optional().describe('What was achieved (completed/skipped).'),
    error: ResultArg.optional().describe('What went wrong (failed).'),
    plan_id: OptionalPlanIdArg,
  }),
  output: z.object({ plan_id: z.string(), ...StepAnswerShape, step: StepViewSchema, ...Instructed }).loose(),
});

export const getPlanStatus = defineTool({
  name: 'getPlanStatus',
  dialect: '000',
  readOnly: true,
  description:
    "Read a plan: its status, progress, every step with results, and received_outputs from other agents' steps " +
    'you depend on. Defaults to your current plan; a plan that ended is read by its plan_id. Prefer events to ' +
    'repeated calls.',
  input: z.object({
    plan_id: OptionalPlanIdArg,
    agent_id: OptionalIdArg.describe(
      'Another agent of your workspace whose current plan (or, once all ended, its most recent one) you want to read.',
    ),
  }),
  output: PlanViewSchema,
});

export const completePlan = defineTool({
  name: 'completePlan',
  dialect: '000',
  readOnly: false,
  description:
    'Finish your plan. completed: every step ended and the goal is met. failed: the goal was not met. cancelled: ' +
    'the plan is abandoned (the only way to end a plan that was never started).',
  input: z.object({
    status: z.enum(['completed', 'failed', 'cancelled']),
    summary: ResultArg.optional(),
    plan_id: OptionalPlanIdArg,
  }),
  output: z
    .object({
      plan_id: z.string(),
      title: z.string(),
      status: z.string(),
      completed_at: z.string().nullable(),
      summary: z.string().nullable(),
      progress: ProgressSchema,
      message: z.string(),
      warning: z.string().optional(),
      unfinished_steps: z
        .array(
          z.object({ step_id: z.string(), sequence: z.number().int(), description: z.string(), status: z.string() }),
        )
        .optional(),
    })
    .loose(),
});

export const addStep = defineTool({
  name: 'addStep',
  dialect: '000',
  readOnly: false,
  description:
    'Add a step to your started plan, at the end or right after after_step_id (later steps are re-sequenced). ' +
    'Use it when you discover extra work or need a corrective step after a failure; never recreate the plan.',
  input: z.object({
    description: DescriptionArg,
    after_step_id: OptionalIdArg,
    plan_id: OptionalPlanIdArg,
  }),
  output: z.object({ plan_id: z.string(), ...StepAnswerShape, step: StepViewSchema, ...Instructed }).loose(),
});

export const listTools = defineTool({
  name: 'listTools',
  dialect: 'planhub',
  readOnly: true,
  description: 'List the tools this server offers, with their descriptions and JSON Schemas.',
  input: z.object({ dialect: z.enum(['000', '001', '002', '003', '004']).optional() }),
  output: z.array(
    z.object({ name: z.string(), dialect: z.string(), description: z.string(), input_schema: z.unknown() }),
  ),
});
