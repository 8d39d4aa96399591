import { DialectSchema, PlanSchema, TaskViewSchema, WaiterSchema } from '@planhub/shared';
import { z } from 'zod';
import { docKeys } from '../keys.ts';
import { defineDocument } from './define.ts';

const AgentPlanRefSchema = z.looseObject({
  plan_id: z.string(),
  dialect: DialectSchema,
  finished: z.boolean(),
  working_dir: z.string().optional(),
  created_at: z.string(),
  changed_at: z.string(),
});

/** The stored documents of the plan and dependency state, by kind. */
export const documents = {
  plan: defineDocument({ name: 'plan', version: 1, key: docKeys.plan, schema: PlanSchema }),
  agent: defineDocument({
    name: 'agent',
    version: 1,
    key: docKeys.agent,
    schema: z.looseObject({ agent_id: z.string(), plans: z.array(AgentPlanRefSchema) }),
  }),
  waiters: defineDocument({
    name: 'waiters',
    version: 1,
    key: docKeys.waiters,
    schema: z.object({ waiters: z.array(WaiterSchema) }),
  }),
  graphClock: defineDocument({
    name: 'graph clock',
    version: 1,
    key: docKeys.graphClock,
    schema: z.object({ n: z.number().int() }),
  }),
  task: defineDocument({ name: 'task', version: 1, key: docKeys.task, schema: TaskViewSchema }),
  /** Read only to split it into per-task documents (see dialect-003/task-upgrade.ts). */
  legacyTasks: defineDocument({
    name: 'legacy task list',
    version: 0,
    key: docKeys.tasks,
    schema: z.object({ high_water: z.number().int(), tasks: z.record(z.string(), TaskViewSchema) }),
  }),
  /** Read only to upgrade it (see legacy-upgrade.ts). */
  legacyGraph: defineDocument({
    name: 'legacy dependency graph',
    version: 0,
    key: docKeys.dependencyGraph,
    schema: z.record(z.string(), z.array(z.string())),
  }),
  /** Read only as the first part of the agent index (see agent-index.ts). */
  legacyAgentIndex: defineDocument({
    name: 'legacy agent index',
    version: 0,
    key: docKeys.agentIndex,
    schema: z.object({ agents: z.array(z.string()) }),
  }),
} as const;
