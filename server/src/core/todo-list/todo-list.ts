import type { NewEvent, TodoListItem } from '@planhub/shared';
import {
  MAX_DESCRIPTION,
  MAX_ITEM_BYTES,
  TODO_LIST_ACTIONS,
  TODO_LIST_STATUSES,
  fail,
  fitsBytes,
  pythonText,
} from '@planhub/shared';
import { agentEvent } from '../plans/plan-events.ts';

/** One agent's seed-001 list. `updated_at` is the agent's own last write (only the owner writes its list). */
export interface TodoListDoc {
  agent_id: string;
  todos: TodoListItem[];
  updated_at: string;
}

export interface TodoCounts {
  count: number;
  pending: number;
  in_progress: number;
  completed: number;
}

/** Counts by status; 002's todo_write shares it (its items have the same three statuses). */
export const countTodos = (todos: readonly Pick<TodoListItem, 'status'>[]): TodoCounts => ({
  count: todos.length,
  pending: todos.filter((t) => t.status === 'pending').length,
  in_progress: todos.filter((t) => t.status === 'in_progress').length,
  completed: todos.filter((t) => t.status === 'completed').length,
});

const REQUIRED = ['content', 'status', 'activeForm'] as const;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStatus = (s: unknown): s is TodoListItem['status'] => (TODO_LIST_STATUSES as readonly unknown[]).includes(s);

/**
 * Upstream checks only that content and activeForm are present, and keeps whatever value they hold. PlanHub's items
 * hold text (the reminder, the renders and typed clients read them as strings), so any other value is kept as text:
 * null as "" (no text), a number, boolean, list or object as its JSON text ("3", "true").
 */
const asText = (value: unknown): string =>
  typeof value === 'string' ? value : value === null ? '' : (JSON.stringify(value) ?? '');

/** Seed 001's schema check, with its messages; items keep any extra keys the model sent. */
export const validateTodos = (raw: readonly unknown[]): TodoListItem[] =>
  raw.map((value, i) => {
    const item = isRecord(value) ? value : {};
    if (!REQUIRED.every((k) => Object.hasOwn(item, k)))
      fail('INVALID_ARGUMENT', `Todo ${i} missing required fields (content, status, activeForm)`);
    // Upstream formats the value with Python's f-string: None, True, {'a': 1}, as pythonText prints them.
    if (!isStatus(item.status)) fail('INVALID_ARGUMENT', `Todo ${i} has invalid status: ${pythonText(item.status)}`);
    const texts = { content: asText(item.content), activeForm: asText(item.activeForm) };
    for (const field of ['content', 'activeForm'] as const)
      if (texts[field].length > MAX_DESCRIPTION)
        fail('INVALID_ARGUMENT', `Todo ${i} field ${field} is too long (at most ${MAX_DESCRIPTION} characters)`);
    if (item.content === texts.content && item.activeForm === texts.activeForm) return item as TodoListItem;
    const stored = { ...item, ...texts };
    // Text made of a list or an object is longer than its JSON value (its quotes are escaped): the item cap holds.
    if (!fitsBytes(MAX_ITEM_BYTES)(stored))
      fail('INVALID_ARGUMENT', `Todo ${i} is too large: a todo item may be at most ${MAX_ITEM_BYTES} bytes as JSON`);
    return stored as TodoListItem;
  });

export interface TodoCall {
  action: string;
  todos?: readonly unknown[] | undefined;
}

export interface TodoOutcome {
  /** The new document, when the call writes one. */
  doc?: TodoListDoc;
  result: { status: 'created' | 'updated' | 'listed'; todos: TodoListItem[]; warning?: string } & TodoCounts;
  events: NewEvent[];
}

const PAST = { create: 'created', update: 'updated' } as const;

/** Seed 001's `todo` tool: create and update replace the whole list; list reads it. */
export const applyTodo = (
  current: TodoListDoc | undefined,
  call: TodoCall,
  ctx: { workspace: string; agent_id: string; now: string; limit: number },
): TodoOutcome => {
  const existing = current?.todos ?? [];
  if (call.action === 'list')
    return { result: { status: 'listed', ...countTodos(existing), todos: existing }, events: [] };
  if (call.action !== 'create' && call.action !== 'update')
    return fail(
      'INVALID_ARGUMENT',
      `Unknown action: ${call.action.slice(0, 64)}. Valid actions: ${TODO_LIST_ACTIONS.join(', ')}`,
    );
  // Upstream takes a missing list as an empty one: the list is replaced by nothing. A list emptied that way is
  // flagged, since a model more likely forgot the items than meant to drop them.
  const raw = call.todos ?? [];
  const warning =
    call.todos === undefined && existing.length > 0
      ? `todos was left out, so your ${existing.length} item(s) were replaced by an empty list (${call.action} ` +
        'replaces the whole list). Send the full list to restore them.'
      : undefined;
  if (raw.length > ctx.limit)
    fail('RESOURCE_EXHAUSTED', `A todo list holds at most ${ctx.limit} items; you sent ${raw.length}.`);
  const todos = validateTodos(raw);
  const counts = countTodos(todos);
  const status = PAST[call.action];
  return {
    doc: { agent_id: ctx.agent_id, todos, updated_at: ctx.now },
    result: { status, ...counts, todos, ...(warning ? { warning } : {}) },
    events: [agentEvent(ctx, 'todos_updated', { dialect: '001', action: call.action, ...counts, todos })],
  };
};
