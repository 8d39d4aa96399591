import {
  DialectSchema,
  SubscriptionSchema,
  TaskViewSchema,
  TodoListItemSchema,
  PersistentTodoSchema,
  WaiterSchema,
} from '@planhub/shared';
import { z } from 'zod';
import type { PlanModeDoc } from '../../core/plan-mode/mode.ts';
import type { TodoListDoc } from '../../core/todo-list/todo-list.ts';
import { docKeys } from '../keys.ts';
import { defineDocument } from './define.ts';
import { planDocuments } from './plan-documents.ts';

const AgentPlanRefSchema = z.looseObject({
  plan_id: z.string(),
  dialect: DialectSchema,
  finished: z.boolean(),
  working_dir: z.string().optional(),
  created_at: z.string(),
  changed_at: z.string(),
});

const SubscriptionsDocSchema = z.object({
  subscriptions: z.array(SubscriptionSchema),
  /** Ids removed lately, newest last: a retried unsubscribe whose first answer was lost is answered, not refused. */
  removed: z.array(z.string()),
});
/** An agent's subscriptions live in one document, so any node it reconnects to finds them. */
export type SubscriptionsDoc = z.infer<typeof SubscriptionsDocSchema>;

const PersistentTodosDocSchema = z.object({ todos: z.array(PersistentTodoSchema) });
/** One agent's seed-002 todo list. */
export type PersistentTodosDoc = z.infer<typeof PersistentTodosDocSchema>;

const PlanModeDocSchema = z.looseObject({
  goal: z.string(),
  scope: z.string().optional(),
  entered_at: z.string(),
  plan_id: z.string().optional(),
});

const asObject = (raw: unknown): Record<string, unknown> | undefined =>
  typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;

/** Every kind of stored document, declared once. */
export const documents = {
  /** A plan is a header plus one document per step (see plan-documents.ts and tools/plan-repository.ts). */
  ...planDocuments,
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
  awaitedSteps: defineDocument({
    name: 'awaited steps',
    version: 1,
    key: docKeys.awaitedSteps,
    schema: z.object({ step_ids: z.array(z.string()) }),
  }),
  edgeClock: defineDocument({
    name: 'edge clock',
    version: 1,
    key: docKeys.edgeClock,
    schema: z.object({ n: z.number().int() }),
  }),
  /** Only presence transitions read and write it (presence/presence-transitions.ts). */
  presence: defineDocument({
    name: 'presence state',
    version: 1,
    key: docKeys.presence,
    schema: z.object({ online: z.boolean(), at: z.string() }),
  }),
  task: defineDocument({ name: 'task', version: 1, key: docKeys.task, schema: TaskViewSchema }),
  todoList: defineDocument<TodoListDoc, [string]>({
    name: 'todo list (001)',
    version: 1,
    key: docKeys.todoList,
    schema: z.looseObject({ agent_id: z.string(), todos: z.array(TodoListItemSchema), updated_at: z.string() }),
  }),
  persistentTodos: defineDocument({
    name: 'todo list (002)',
    version: 1,
    key: docKeys.persistentTodos,
    schema: PersistentTodosDocSchema,
  }),
  planMode: defineDocument<PlanModeDoc, [string]>({
    name: 'plan mode (002)',
    version: 1,
    key: docKeys.planMode,
    schema: PlanModeDocSchema,
  }),
  /**
   * Read only where `planMode` is absent, and moved to it by the agent's next mode write (plan-mode/mode-access.ts):
   * builds before 534ad52 stored the same shape under `mode002:<agent>`.
   */
  legacyPlanMode: defineDocument<PlanModeDoc, [string]>({
    name: 'legacy plan mode (002)',
    version: 0,
    key: docKeys.legacyPlanMode,
    schema: PlanModeDocSchema,
  }),
  subscriptions: defineDocument({
    name: 'subscriptions',
    version: 1,
    key: docKeys.subscriptions,
    schema: SubscriptionsDocSchema,
    // Documents written before `removed` existed hold only the subscriptions.
    migrate: (raw) => {
      const doc = asObject(raw);
      return doc && !('removed' in doc) ? { ...doc, removed: [] } : raw;
    },
  }),
  /** Read only to split it into per-task documents (see task-list/task-upgrade.ts). */
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
