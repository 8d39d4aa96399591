import type { TaskSummary, TodoSummary } from '@planhub/shared';

/**
 * Summaries of the documents other dialects own (001/002 todos, 002 mode, 003 tasks) for the overview. They read
 * only the fields the overview shows and tolerate documents they do not recognise (an empty summary), so a change
 * in a dialect's document shape can thin the dashboard but never break getWorkspace.
 */
const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

const listIn = (doc: unknown, ...fields: string[]): unknown[] => {
  if (Array.isArray(doc)) return doc;
  const r = record(doc);
  for (const field of fields) {
    const value = r?.[field];
    if (Array.isArray(value)) return value;
    if (record(value)) return Object.values(value as object);
  }
  return [];
};

export const todosFromDoc = (doc: unknown): TodoSummary[] =>
  listIn(doc, 'todos', 'items').flatMap((item): TodoSummary[] => {
    const r = record(item);
    const content = text(r?.content);
    const status = text(r?.status);
    if (content === undefined || status === undefined) return [];
    const activeForm = text(r?.activeForm) ?? text(r?.active_form);
    const priority = text(r?.priority);
    return [
      {
        content,
        status,
        ...(activeForm !== undefined ? { active_form: activeForm } : {}),
        ...(priority !== undefined ? { priority } : {}),
      },
    ];
  });

const ids = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.map((v) => (typeof v === 'number' ? String(v) : text(v))).filter((v) => v !== undefined)
    : [];

export const tasksFromDoc = (doc: unknown): TaskSummary[] =>
  listIn(doc, 'tasks', 'items')
    .flatMap((item): TaskSummary[] => {
      const r = record(item);
      const id = typeof r?.id === 'number' ? String(r.id) : text(r?.id);
      const subject = text(r?.subject);
      const status = text(r?.status);
      if (id === undefined || subject === undefined || status === undefined) return [];
      const owner = text(r?.owner);
      return [
        {
          id,
          subject,
          status,
          ...(owner ? { owner } : {}),
          blocked_by: ids(r?.blockedBy ?? r?.blocked_by),
        },
      ];
    })
    .sort((a, b) => Number(a.id) - Number(b.id));

export const modeFromDoc = (doc: unknown): string | null => text(record(doc)?.mode) ?? null;
