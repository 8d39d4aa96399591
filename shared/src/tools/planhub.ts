import { z } from 'zod';
import { IdArg } from './common.ts';
import { defineTool } from './define.ts';
import { AgentSummarySchema, TaskSummarySchema } from './workspace-summary.ts';

/** PlanHub's own tools (dialect "planhub"). Every export of this file is a tool: the catalog spreads it. */
export const getWorkspace = defineTool({
  name: 'getWorkspace',
  dialect: 'planhub',
  readOnly: true,
  description:
    'An overview of your workspace for dashboards and people: every agent with its plans (status, progress, ' +
    'steps), plans awaiting approval, pending plan modifications, todos and tasks. last_event_id is the workspace ' +
    'log position the overview is at least as new as: subscribe with after_event set to it to follow every change.',
  input: z.object({
    agent_id: IdArg.optional().describe('Only this agent.'),
    plans_per_agent: z.number().int().min(1).max(50).default(10).describe('Finished plans shown per agent.'),
  }),
  output: z.object({
    workspace: z.string(),
    agents: z.array(AgentSummarySchema),
    /** Every task of the workspace (003), numerically ordered. */
    tasks: z.array(TaskSummarySchema),
    last_event_id: z.string().nullable(),
    generated_at: z.string(),
  }),
});

export const listWorkspaces = defineTool({
  name: 'listWorkspaces',
  dialect: 'planhub',
  readOnly: true,
  description:
    'The workspaces a person or dashboard may open: every workspace the server has seen in open mode; with signed ' +
    "tokens, the token's own workspace (a token names one). Agents work in one workspace and are refused.",
  input: z.object({}),
  output: z.object({ workspaces: z.array(z.string()), count: z.number().int() }),
});
