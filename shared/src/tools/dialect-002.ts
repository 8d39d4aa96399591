import { z } from 'zod';
import { IdArg, ResultArg } from './common.ts';
import { defineTool } from './define.ts';

const Decision = z
  .object({ plan_id: z.string(), status: z.string(), message: z.string(), mode: z.string().optional() })
  .loose();

export const plan_approve = defineTool({
  name: 'plan_approve',
  dialect: '002',
  readOnly: false,
  description:
    'Approve the plan that is waiting for approval, and begin execution. Call it only when the user has approved. ' +
    'An agent approves its own plan; a user or dashboard names the plan (plan_id) or its agent (agent_id).',
  input: z.object({
    plan_id: IdArg.optional(),
    agent_id: IdArg.optional().describe('Whose waiting plan to approve (for users deciding for an agent).'),
  }),
  output: Decision,
});

export const plan_reject = defineTool({
  name: 'plan_reject',
  dialect: '002',
  readOnly: false,
  description: 'Reject the plan that is waiting for approval and return to normal mode. Say why in reason.',
  input: z.object({
    plan_id: IdArg.optional(),
    agent_id: IdArg.optional(),
    reason: ResultArg.optional(),
  }),
  output: Decision,
});
