import { renderTodoReminder, renderTodoSummary, usedRecently } from '@planhub/shared';
import { applyTodo, countTodos } from '../../core/todo-list/todo-list.ts';
import { documents } from '../../store/documents/documents.ts';
import type { ToolHandlers } from '../context.ts';
import { registerAgent } from '../planhub/agent-index.ts';

/** Seed 001's `todo`: one list per agent, written only by its agent. */
const todo: ToolHandlers['todo'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const { caller, services } = ctx;
    const key = documents.todoList.key(caller.agent_id);
    const current = await tx.read(documents.todoList, caller.agent_id);
    const outcome = applyTodo(current, args, {
      workspace: caller.workspace,
      agent_id: caller.agent_id,
      now: services.now(),
      limit: services.config.limits.todosPerList,
    });
    if (outcome.doc) tx.put(key, outcome.doc);
    // An agent that only keeps todos must still appear in the workspace overview.
    if (outcome.doc && !current) await registerAgent(tx, caller.agent_id);
    tx.emit(...outcome.events);
    return outcome.result;
  });

/** The hooks-todo-reminder text for a host to inject (read-only; any member of the workspace may read it). */
const todoReminder: ToolHandlers['todoReminder'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const agentId = args.agent_id ?? ctx.caller.agent_id;
    const doc = await tx.read(documents.todoList, agentId);
    const todos = doc?.todos ?? [];
    const recent = args.used_recently ?? usedRecently(doc?.updated_at, ctx.services.now(), args.quiet_ms);
    return {
      agent_id: agentId,
      reminder: renderTodoReminder(todos, { usedRecently: recent }) ?? null,
      used_recently: recent,
      throttled: recent,
      summary: renderTodoSummary(todos),
      todos,
      ...countTodos(todos),
      updated_at: doc?.updated_at ?? null,
    };
  });

export const todoListHandlers = { todo, todoReminder } satisfies Partial<ToolHandlers>;
