import type { PendingModification, Plan, TaskSummary, TodoItem002, TodoSummary } from '@planhub/shared';
import type { Mode002Doc } from '../plan-mode/mode.ts';
import { deriveMode, pendingModificationOf } from '../plan-mode/mode.ts';
import type { TaskDoc } from '../tasks/task-model.ts';
import type { TodoDoc001 } from '../todos-001/todo-list.ts';

/** The overview's view of what the other dialects keep per agent (001/002 todos, 002 mode) and per workspace (003). */
export const todosOf = (
  doc001: TodoDoc001 | undefined,
  doc002: { todos: Pick<TodoItem002, 'content' | 'status' | 'priority'>[] } | undefined,
): TodoSummary[] => [
  ...(doc001?.todos ?? []).map((t) => ({ content: t.content, status: t.status, active_form: t.activeForm })),
  ...(doc002?.todos ?? []).map((t) => ({ content: t.content, status: t.status, priority: t.priority })),
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
export const modeOf = (doc: Mode002Doc | undefined, plans: ReadonlyMap<string, Plan>): string | null =>
  doc ? deriveMode(doc, doc.plan_id === undefined ? undefined : plans.get(doc.plan_id)) : null;

export const pendingModificationsOf = (plans: readonly Plan[]): PendingModification[] =>
  plans.flatMap((plan) => {
    const pending = pendingModificationOf(plan);
    return pending ? [{ ...pending, plan_id: plan.plan_id, agent_id: plan.agent_id }] : [];
  });
