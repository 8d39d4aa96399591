import { describe, expect, it } from 'vitest';
import type { TodoListDoc } from '../src/core/todo-list/todo-list.ts';
import { applyTodo } from '../src/core/todo-list/todo-list.ts';
import { errorOf } from './support/error-of.ts';

const ctx = { workspace: 'ws', agent_id: 'main', now: '2026-01-01T00:00:00.000Z', limit: 200 };

/** The five items of the seed's "Implement a new authentication system" example. */
const seedTodos = (statuses: string[] = []) =>
  [
    ['Research auth requirements', 'Researching auth requirements'],
    ['Design auth flow', 'Designing auth flow'],
    ['Implement auth module', 'Implementing auth module'],
    ['Write auth tests', 'Writing auth tests'],
    ['Document auth usage', 'Documenting auth usage'],
  ].map(([content, activeForm], i) => ({ content, activeForm, status: statuses[i] ?? 'pending' }));

describe('seed 001 todo core', () => {
  it('creates the seed list and answers with the status, the counts and the full list', () => {
    const out = applyTodo(undefined, { action: 'create', todos: seedTodos() }, ctx);
    expect(out.result).toEqual({
      status: 'created',
      count: 5,
      pending: 5,
      in_progress: 0,
      completed: 0,
      todos: seedTodos(),
    });
    expect(out.doc).toEqual({ agent_id: 'main', todos: seedTodos(), updated_at: ctx.now });
    expect(out.events).toHaveLength(1);
    expect(out.events[0]).toMatchObject({
      event_type: 'todos_updated',
      source_agent: 'main',
      payload: { action: 'create', count: 5, pending: 5 },
    });
  });

  it('replaces the whole list on update and counts pending, in progress and completed', () => {
    const created = applyTodo(undefined, { action: 'create', todos: seedTodos() }, ctx).doc as TodoListDoc;
    const next = seedTodos(['completed', 'in_progress']);
    const out = applyTodo(created, { action: 'update', todos: next }, ctx);
    expect(out.result).toEqual({ status: 'updated', count: 5, pending: 3, in_progress: 1, completed: 1, todos: next });
    expect(out.doc?.todos).toEqual(next);
  });

  it('lists the current todos without writing or emitting anything', () => {
    const doc = applyTodo(undefined, { action: 'create', todos: seedTodos(['completed']) }, ctx).doc as TodoListDoc;
    const out = applyTodo(doc, { action: 'list' }, ctx);
    expect(out.result).toMatchObject({ status: 'listed', count: 5, completed: 1, pending: 4, todos: doc.todos });
    expect(out.doc).toBeUndefined();
    expect(out.events).toEqual([]);
    expect(applyTodo(undefined, { action: 'list' }, ctx).result).toMatchObject({
      status: 'listed',
      count: 0,
      todos: [],
    });
  });

  it('keeps extra keys the model put on an item', () => {
    const todos = [{ content: 'Run tests', activeForm: 'Running tests', status: 'pending', id: 7, tag: 'ci' }];
    expect(applyTodo(undefined, { action: 'create', todos }, ctx).doc?.todos).toEqual(todos);
  });

  it('clears the list with an empty create', () => {
    expect(applyTodo(undefined, { action: 'create', todos: [] }, ctx).result).toMatchObject({ count: 0, todos: [] });
  });

  it('names the item that misses a required field', () => {
    const todos: Record<string, unknown>[] = seedTodos();
    todos[2] = { content: 'Implement auth module', status: 'pending' };
    expect(errorOf(() => applyTodo(undefined, { action: 'create', todos }, ctx))).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'Todo 2 missing required fields (content, status, activeForm)',
    });
  });

  it('names an item that is not an object at all (a bare string, null) as missing the required fields', () => {
    for (const bad of ['Run tests', null, ['Run tests']])
      expect(errorOf(() => applyTodo(undefined, { action: 'create', todos: [...seedTodos(), bad] }, ctx))).toEqual({
        code: 'INVALID_ARGUMENT',
        message: 'Todo 5 missing required fields (content, status, activeForm)',
      });
  });

  it('names the item with an invalid status', () => {
    const todos = seedTodos(['blocked']);
    expect(errorOf(() => applyTodo(undefined, { action: 'update', todos }, ctx))).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'Todo 0 has invalid status: blocked',
    });
  });

  it('refuses an unknown action and lists the valid ones', () => {
    expect(errorOf(() => applyTodo(undefined, { action: 'delete' }, ctx))).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'Unknown action: delete. Valid actions: create, update, list',
    });
  });

  it('takes a missing todos as an empty list, as upstream, and warns when that empties a list', () => {
    expect(applyTodo(undefined, { action: 'create' }, ctx).result).toEqual({
      status: 'created',
      count: 0,
      pending: 0,
      in_progress: 0,
      completed: 0,
      todos: [],
    });
    const doc = applyTodo(undefined, { action: 'create', todos: seedTodos() }, ctx).doc as TodoListDoc;
    const out = applyTodo(doc, { action: 'update' }, ctx);
    expect(out.result).toMatchObject({ status: 'updated', count: 0, todos: [] });
    expect(out.result.warning).toMatch(/^todos was left out, so your 5 item\(s\) were replaced by an empty list/);
    expect(out.doc?.todos).toEqual([]);
  });

  it('keeps content and activeForm that are not strings as text, since upstream checks only that they are there', () => {
    const todos = [
      { content: 3, activeForm: null, status: 'pending' },
      { content: true, activeForm: ['a', 1], status: 'completed', priority: 'high' },
      { content: { step: 'x' }, activeForm: 'Doing x', status: 'in_progress' },
    ];
    expect(applyTodo(undefined, { action: 'create', todos }, ctx).result.todos).toEqual([
      { content: '3', activeForm: '', status: 'pending' },
      { content: 'true', activeForm: '["a",1]', status: 'completed', priority: 'high' },
      { content: '{"step":"x"}', activeForm: 'Doing x', status: 'in_progress' },
    ]);
  });

  it('holds the caps on content turned into text: its length and the item size', () => {
    const long = [{ content: Array.from({ length: 1_500 }, (_, i) => i), activeForm: 'x', status: 'pending' }];
    expect(errorOf(() => applyTodo(undefined, { action: 'create', todos: long }, ctx)).message).toBe(
      'Todo 0 field content is too long (at most 4000 characters)',
    );
    // 6.6 KB as sent, 9.4 KB once each quote of the two objects is escaped in their text (at most 8 KiB).
    const quotes = (prefix: string) => Object.fromEntries(Array.from({ length: 340 }, (_, i) => [prefix + i, '']));
    const big = [{ content: quotes('k'), activeForm: quotes('a'), status: 'pending' }];
    expect(errorOf(() => applyTodo(undefined, { action: 'create', todos: big }, ctx)).message).toBe(
      'Todo 0 is too large: a todo item may be at most 8192 bytes as JSON',
    );
  });

  it('refuses a list longer than the configured limit with RESOURCE_EXHAUSTED', () => {
    expect(errorOf(() => applyTodo(undefined, { action: 'create', todos: seedTodos() }, { ...ctx, limit: 4 }))).toEqual(
      { code: 'RESOURCE_EXHAUSTED', message: 'A todo list holds at most 4 items; you sent 5.' },
    );
  });
});
