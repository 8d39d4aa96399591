import { z } from 'zod';
import { MAX_ARRAY, MAX_DESCRIPTION, MAX_ID, MAX_TITLE } from '../limits.ts';
import { laxInt } from './lax-int.ts';
import { DependencyRefSchema } from '../model.ts';
import {
  AgentIdArg,
  DescriptionArg,
  IdArg,
  OptionalIdArg,
  OptionalPlanIdArg,
  ResultArg,
  emptyAsAbsent,
  StepAnswerShape,
  StepViewSchema,
} from './common.ts';
import { defineTool } from './define.ts';

const DependsOnArg = z
  .array(
    z.object({
      agent_id: AgentIdArg,
      step_id: IdArg,
      plan_id: OptionalIdArg.describe("Without it, the agent's step in its current or most recent plan."),
      // Upstream TaskRef's display fields: shown with the dependency, never used to find the step.
      agent_name: z.string().max(MAX_TITLE).optional().describe("For display: the agent's name."),
      step_sequence: laxInt().optional().describe("For display: the step's position in its plan."),
      step_description: z.string().max(MAX_DESCRIPTION).optional().describe('For display: what the step does.'),
    }),
  )
  .min(1)
  .max(MAX_ARRAY);

/**
 * A provides name is its own namespace: dependents' received_outputs key other agents' steps as "agent_id:step_id",
 * so a name with ":" could overwrite another agent's output there.
 */
const ProvidesArg = z
  .string()
  .max(MAX_ID)
  .regex(/^[^:]*$/, 'a provides name may not contain ":" (that form names another agent\'s step)')
  // As a key it would be written by assignment, which sets an object's prototype instead of a key: the output
  // would be lost under that name.
  .refine((name) => name !== '__proto__', 'a provides name may not be "__proto__"; choose another name')
  // Upstream keeps "" (`if provides is not None`) and then keys the output by agent and step as without one.
  .optional()
  .transform(emptyAsAbsent)
  .optional();

const OutputArg = z.record(z.string(), z.unknown());
const NewDependentStep = z.object({
  description: DescriptionArg,
  depends_on: DependsOnArg,
  after_step_id: OptionalIdArg,
  provides: ProvidesArg,
  plan_id: OptionalPlanIdArg,
});
const AttachDependencies = z.object({
  step_id: IdArg.describe('An existing step of yours that should wait.'),
  depends_on: DependsOnArg,
  provides: ProvidesArg,
  plan_id: OptionalPlanIdArg,
});

export const addDependentStep = defineTool({
  name: 'addDependentStep',
  dialect: '000',
  readOnly: false,
  description:
    "Add a step that waits for other agents' steps ({agent_id, step_id}); it is created blocked and unblocks by " +
    'itself, exactly once, when every dependency has ended, with their outputs in received_outputs. Pass ' +
    'step_id instead of description to make one of your existing steps wait. A step that does not exist yet (an ' +
    'agent you just spawned) is waited for. Do not poll; wait for step_unblocked.',
  input: z.union([NewDependentStep, AttachDependencies]),
  output: z
    .object({
      plan_id: z.string(),
      ...StepAnswerShape,
      step: StepViewSchema,
      blocked_by: z.array(DependencyRefSchema),
      depends_on: z.array(DependencyRefSchema),
      received_outputs: z.record(z.string(), z.unknown()),
    })
    .loose(),
});

export const completeStepWithOutput = defineTool({
  name: 'completeStepWithOutput',
  dialect: '000',
  readOnly: false,
  behaviour: { readsBeforeAdmission: true },
  description:
    'Complete a step AND hand structured output to every agent waiting on it (their received_outputs). Use it for ' +
    "the steps other agents depend on, typically a subagent's final step.",
  input: z.object({
    step_id: IdArg,
    output: OutputArg,
    result: ResultArg.optional(),
    provides: ProvidesArg.describe('A second name under which dependents receive this output.'),
    plan_id: OptionalPlanIdArg,
  }),
  output: z
    .object({
      plan_id: z.string(),
      ...StepAnswerShape,
      output: OutputArg,
      step: StepViewSchema,
      unblocked: z.array(z.object({ agent_id: z.string(), plan_id: z.string(), step_id: z.string() })),
      instruction: z.string(),
    })
    .loose(),
});

export const getBlockedSteps = defineTool({
  name: 'getBlockedSteps',
  dialect: '000',
  readOnly: true,
  description: 'List your steps that are still waiting on other agents, with what they wait for.',
  input: z.object({ plan_id: OptionalPlanIdArg }),
  output: z
    .object({
      blocked_steps: z.array(
        z.object({
          step_id: z.string(),
          sequence: z.number().int(),
          description: z.string(),
          blocked_by: z.array(DependencyRefSchema),
          depends_on: z.array(DependencyRefSchema),
          received_outputs: z.record(z.string(), z.unknown()),
        }),
      ),
      count: z.number().int().optional(),
      message: z.string().optional(),
    })
    .loose(),
});
