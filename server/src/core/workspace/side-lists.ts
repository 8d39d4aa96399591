import type { PendingModification, Plan, TaskSummary, PersistentTodo, TodoSummary } from '@planhub/shared';
import type { PlanModeDoc } from '../plan-mode/mode.ts';
import { deriveMode, pendingModificationOf } from '../plan-mode/mode.ts';
import type { TaskDoc } from '../tasks/task-model.ts';
import type { TodoListDoc } from '../todo-list/todo-list.ts';

/** The overview's view of what the other dialects keep per agent (001/002 todos, 002 mode) and per workspace (003). */
export const todosOf = (
  todoListDoc: TodoListDoc | undefined,
  persistentTodosDoc: { todos: Pick<PersistentTodo, 'content' | 'status' | 'priority'>[] } | undefined,
): TodoSummary[] => [
  ...(todoListDoc?.todos ?? []).map((t) => ({ content: t.content, status: t.status, active_form: t.activeForm })),
  ...(persistentTodosDoc?.todos ?? []).map((t) => ({ content: t.content, status: t.status, priority: t.priority })),
];

export const tasksOf = (doc: TaskDoc | undefined): TaskSummary[] =>
  Object.values(doc?.tasks ?? {})
    .map((t) => ({
      id: t.id,
      subject: t.subject,
      status: t.status,
      ...(t.owner ? { owner: t.owner } : {}),
      blocked_by: t.blockedBy,
    }))
    .sort((a, b) => Number(a.id) - Number(b.id));

/** 002's mode follows the status of the plan plan_exit made, so it is derived here the way plan_status does. */
export const modeOf = (doc: PlanModeDoc | undefined, plans: ReadonlyMap<string, Plan>): string | null =>
  doc ? deriveMode(doc, doc.plan_id === undefined ? undefined : plans.get(doc.plan_id)) : null;

export const pendingModificationsOf = (plans: readonly Plan[]): PendingModification[] =>
  plans.flatMap((plan) => {
    const pending = pendingModificationOf(plan);
    return pending ? [{ ...pending, plan_id: plan.plan_id, agent_id: plan.agent_id }] : [];
  });
