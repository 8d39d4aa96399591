import type { PersistentTodo } from '@planhub/shared';
import { describe, expect, it } from 'vitest';
import { countTodos } from '../src/core/todo-list/todo-list.ts';
import { writeTodos, type TodoInput } from '../src/core/persistent-todos/write-todos.ts';

const T0 = '2025-01-01T00:00:00.000Z';
const T1 = '2025-01-02T00:00:00.000Z';
const t = (id: string, status: TodoInput['status'] = 'pending', content = id): TodoInput => ({
  id,
  content,
  status,
  priority: 'medium',
});

describe('002 todo_write rules', () => {
  it('stamps new items and keeps created_at; updated_at moves only for items that changed', () => {
    const first = writeTodos([], [t('a'), t('b')], T0, 200).todos;
    expect(first.every((i) => i.created_at === T0 && i.updated_at === T0)).toBe(true);
    const next = writeTodos(first, [t('a', 'in_progress'), t('b')], T1, 200).todos;
    expect(next.map((i) => [i.id, i.created_at, i.updated_at])).toEqual([
      ['a', T0, T1],
      ['b', T0, T0],
    ]);
  });

  it('keeps the timestamps an item is sent with, as upstream stores them, and stamps only missing or empty ones', () => {
    const sent = { ...t('a'), created_at: '2026-03-30T09:00:00+02:00', updated_at: 'not a date' };
    const first = writeTodos([], [sent, { ...t('b'), created_at: '', updated_at: '' }], T0, 200).todos;
    expect(first.map((i) => [i.id, i.created_at, i.updated_at])).toEqual([
      ['a', '2026-03-30T09:00:00+02:00', 'not a date'],
      ['b', T0, T0],
    ]);
    // Written again without timestamps: created_at stays as first sent, updated_at moves only on a change.
    const next = writeTodos(first, [t('a'), t('b', 'in_progress')], T1, 200).todos;
    expect(next.map((i) => [i.id, i.created_at, i.updated_at])).toEqual([
      ['a', '2026-03-30T09:00:00+02:00', 'not a date'],
      ['b', T0, T1],
    ]);
  });

  it('preserves omitted items as completed and first, unless the new list is all completed', () => {
    const stored = writeTodos([], [t('a', 'in_progress'), t('b', 'completed'), t('c')], T0, 200).todos;
    const out = writeTodos(stored, [t('c', 'in_progress'), t('d')], T1, 200);
    expect(out.todos.map((i) => [i.id, i.status])).toEqual([
      ['a', 'completed'],
      ['b', 'completed'],
      ['c', 'in_progress'],
      ['d', 'pending'],
    ]);
    expect(out.preserved).toEqual(['a', 'b']);
    // Every kept item is re-stamped, as upstream does (its case 11: "d completed (re-stamped)"), b too.
    expect(out.todos[0]?.updated_at).toBe(T1);
    expect(out.todos[1]?.updated_at).toBe(T1);
    expect(out.todos[1]?.created_at).toBe(T0);
    const slate = writeTodos(stored, [t('z', 'completed')], T1, 200);
    expect(slate.todos.map((i) => i.id)).toEqual(['z']);
    expect(slate.preserved).toEqual([]);
  });

  it('clears on an empty list', () => {
    const stored = writeTodos([], [t('a')], T0, 200).todos;
    expect(writeTodos(stored, [], T1, 200)).toEqual({
      todos: [],
      preserved: [],
      dropped: [],
      cleared: true,
      duplicates: [],
    });
    expect(writeTodos([], [], T1, 200).cleared).toBe(false);
  });

  it('keeps items that share an id, as upstream does, and names the shared ids', () => {
    const out = writeTodos([], [t('1', 'pending', 'x'), t('1', 'in_progress', 'y'), t('2')], T0, 200);
    expect(out.todos.map((i) => [i.id, i.content, i.status])).toEqual([
      ['1', 'x', 'pending'],
      ['1', 'y', 'in_progress'],
      ['2', '2', 'pending'],
    ]);
    expect(out.duplicates).toEqual(['1']);
    expect(writeTodos([], [t('1'), t('2')], T0, 200).duplicates).toEqual([]);
  });

  it('drops the oldest preserved items beyond the list limit, and refuses a list over the limit', () => {
    const stored: PersistentTodo[] = writeTodos([], [t('a'), t('b'), t('c')], T0, 3).todos;
    const out = writeTodos(stored, [t('x'), t('y')], T1, 3);
    expect(out.todos.map((i) => i.id)).toEqual(['c', 'x', 'y']);
    expect(out.dropped).toEqual(['a', 'b']);
    expect(() => writeTodos([], [t('1'), t('2'), t('3'), t('4')], T1, 3)).toThrow(/at most 3 items/);
  });

  it('counts statuses', () => {
    expect(countTodos([{ status: 'pending' }, { status: 'completed' }, { status: 'in_progress' }])).toEqual({
      count: 3,
      pending: 1,
      in_progress: 1,
      completed: 1,
    });
  });
});
