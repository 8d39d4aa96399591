import type { PersistentTodo } from '@planhub/shared';
import { fail } from '@planhub/shared';

/**
 * An item as the agent sends it. Its timestamps are kept as sent, as upstream keeps them (a host that stamps its own
 * reads them back unchanged), whatever their format: upstream never parsed them, and the schema caps their length.
 */
export interface TodoInput {
  id: string;
  content: string;
  status: PersistentTodo['status'];
  priority: PersistentTodo['priority'];
  created_at?: string | undefined;
  updated_at?: string | undefined;
}

export interface TodoWriteOutcome {
  todos: PersistentTodo[];
  /** ids of stored items the new list left out, kept as completed. */
  preserved: string[];
  /** ids of preserved items dropped (oldest first) to stay within the list limit. */
  dropped: string[];
  cleared: boolean;
  /** ids sent more than once: kept as sent (upstream keeps them), but a later write cannot tell those items apart. */
  duplicates: string[];
}

const duplicateIds = (items: readonly TodoInput[]): string[] => {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const { id } of items) (seen.has(id) ? twice : seen).add(id);
  return [...twice];
};

const sameContent = (a: TodoInput, b: PersistentTodo) =>
  a.content === b.content && a.status === b.status && a.priority === b.priority;

/** A timestamp the agent sent; an empty one (upstream would have dropped the item) counts as not sent. */
const sent = (value: string | undefined): string | undefined =>
  value === undefined || value === '' ? undefined : value;

/**
 * Seed 002's todo_write: the new list replaces the old one; stored items it omits are kept as completed and placed
 * first, unless every new item is completed (a clean slate); an empty list clears. Timestamps the agent sends are
 * stored as sent. Without them PlanHub stamps its own (ISO-8601 UTC): `created_at` survives for ids the list already
 * had, `updated_at` moves when an item sent changed, and on every kept item.
 */
export const writeTodos = (
  stored: readonly PersistentTodo[],
  incoming: readonly TodoInput[],
  now: string,
  limit: number,
): TodoWriteOutcome => {
  if (incoming.length > limit)
    fail('RESOURCE_EXHAUSTED', `A todo list holds at most ${limit} items; you sent ${incoming.length}.`);
  if (incoming.length === 0)
    return { todos: [], preserved: [], dropped: [], cleared: stored.length > 0, duplicates: [] };
  const old = new Map(stored.map((t) => [t.id, t]));
  const next = incoming.map((item): PersistentTodo => {
    const before = old.get(item.id);
    return {
      id: item.id,
      content: item.content,
      status: item.status,
      priority: item.priority,
      created_at: sent(item.created_at) ?? before?.created_at ?? now,
      updated_at: sent(item.updated_at) ?? (before && sameContent(item, before) ? before.updated_at : now),
    };
  });
  const cleanSlate = incoming.every((t) => t.status === 'completed');
  const ids = new Set(incoming.map((t) => t.id));
  let kept = cleanSlate
    ? []
    : stored
        .filter((t) => !ids.has(t.id))
        // Re-stamped on every write that keeps them, as upstream does: their updated_at says when the list last
        // carried them.
        .map((t): PersistentTodo => ({ ...t, status: 'completed', updated_at: now }));
  const room = limit - next.length;
  const dropped = kept.length > room ? kept.slice(0, kept.length - room).map((t) => t.id) : [];
  if (dropped.length > 0) kept = kept.slice(kept.length - room);
  return {
    todos: [...kept, ...next],
    preserved: kept.map((t) => t.id),
    dropped,
    cleared: false,
    duplicates: duplicateIds(incoming),
  };
};
