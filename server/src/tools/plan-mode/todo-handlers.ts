import { agentEvent } from '../../core/plans/plan-events.ts';
import { countTodos } from '../../core/todo-list/todo-list.ts';
import { writeTodos } from '../../core/persistent-todos/write-todos.ts';
import type { PersistentTodosDoc } from '../../store/documents/documents.ts';
import { documents } from '../../store/documents/documents.ts';
import type { ToolHandlers } from '../context.ts';
import { registerAgent } from '../planhub/agent-index.ts';

const EMPTY = 'No todos. Use todo_write to create your task list.';

const todo_read: ToolHandlers['todo_read'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const doc = await tx.read(documents.persistentTodos, args.agent_id ?? ctx.caller.agent_id);
    const todos = doc?.todos ?? [];
    return todos.length === 0 ? { todos, message: EMPTY } : { todos };
  });

const todo_write: ToolHandlers['todo_write'] = (ctx, args) =>
  ctx.transact(async (tx) => {
    const { caller, services } = ctx;
    const now = services.now();
    const key = documents.persistentTodos.key(caller.agent_id);
    const stored = (await tx.read(documents.persistentTodos, caller.agent_id))?.todos ?? [];
    const outcome = writeTodos(stored, args.todos, now, services.config.limits.todosPerList);
    const counts = countTodos(outcome.todos);
    // A write that changes nothing (a repeat) stores and announces nothing: one event per change.
    if (JSON.stringify(outcome.todos) !== JSON.stringify(stored)) {
      if (outcome.todos.length === 0) tx.delete(key);
      else tx.put(key, { todos: outcome.todos } satisfies PersistentTodosDoc);
      // An agent that only keeps todos must still appear in the workspace overview.
      if (stored.length === 0 && outcome.todos.length > 0) await registerAgent(tx, caller.agent_id);
      tx.emit(
        agentEvent({ workspace: caller.workspace, agent_id: caller.agent_id, now }, 'todos_updated', {
          agent_id: caller.agent_id,
          dialect: '002',
          ...counts,
          todos: outcome.todos,
        }),
      );
    }
    const notes = [
      ...(outcome.preserved.length > 0
        ? [`Kept ${outcome.preserved.length} item(s) you left out as completed: ${outcome.preserved.join(', ')}.`]
        : []),
      ...(outcome.dropped.length > 0
        ? [`Dropped the oldest kept item(s) ${outcome.dropped.join(', ')} to stay within the list limit.`]
        : []),
      ...(outcome.cleared ? ['Todo list cleared.'] : []),
    ];
    const warnings = [
      ...(counts.in_progress > 1
        ? [`${counts.in_progress} items are in_progress; keep exactly one in progress at a time.`]
        : []),
      ...(outcome.duplicates.length > 0
        ? [
            `Several items share the id ${outcome.duplicates.map((id) => `"${id}"`).join(', ')}; all were kept, but ` +
              'give each item its own id so later writes can tell them apart.',
          ]
        : []),
    ];
    return {
      todos: outcome.todos,
      ...(notes.length > 0 ? { message: notes.join(' ') } : {}),
      ...(warnings.length > 0 ? { warning: warnings.join(' ') } : {}),
    };
  });

export const persistentTodoHandlers = { todo_read, todo_write } satisfies Partial<ToolHandlers>;
