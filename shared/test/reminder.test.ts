import { describe, expect, it } from 'vitest';
import type { ReminderTodo } from '../src/render/reminder.ts';
import {
  REMINDER_QUIET_MS,
  renderTodoLines,
  renderTodoReminder,
  renderTodoSummary,
  shouldRemind,
} from '../src/render/reminder.ts';

const item = (content: string, activeForm: string, status: ReminderTodo['status']): ReminderTodo => ({
  content,
  activeForm,
  status,
});

const seedList = (statuses: ReminderTodo['status'][]) =>
  [
    ['Research auth requirements', 'Researching auth requirements'],
    ['Design auth flow', 'Designing auth flow'],
    ['Implement auth module', 'Implementing auth module'],
    ['Write auth tests', 'Writing auth tests'],
    ['Document auth usage', 'Documenting auth usage'],
  ].map(([c, a], i) => item(c as string, a as string, statuses[i] ?? 'pending'));

describe('seed 001 reminder rendering', () => {
  it('renders the one-line summary exactly as the seed shows the AI seeing it', () => {
    const todos = seedList(['completed', 'completed', 'pending', 'pending', 'pending']);
    expect(renderTodoSummary(todos)).toBe('✓1 done, ✓2 done, ☐3 pending, ☐4 pending, ☐5 pending');
  });

  it('marks an item in progress with an arrow in the summary', () => {
    const todos = seedList(['completed', 'in_progress', 'pending', 'pending', 'pending']);
    expect(renderTodoSummary(todos)).toBe('✓1 done, →2 in progress, ☐3 pending, ☐4 pending, ☐5 pending');
  });

  it('shows content for done and pending items and activeForm for the item in progress', () => {
    const todos = seedList(['completed', 'in_progress', 'pending', 'pending', 'pending']);
    expect(renderTodoLines(todos)).toBe(
      [
        '✓ Research auth requirements',
        '→ Designing auth flow',
        '☐ Implement auth module',
        '☐ Write auth tests',
        '☐ Document auth usage',
      ].join('\n'),
    );
  });

  it('wraps the list in a hooks-todo-reminder system-reminder block', () => {
    const todos = seedList(['completed', 'in_progress', 'pending', 'pending', 'pending']);
    const block = renderTodoReminder(todos) ?? '';
    expect(block.startsWith('<system-reminder source="hooks-todo-reminder">\n')).toBe(true);
    expect(block.endsWith('\n</system-reminder>')).toBe(true);
    expect(block).toContain(renderTodoLines(todos));
    expect(block).toContain(`Progress: ${renderTodoSummary(todos)}`);
    expect(block).toMatch(/DO NOT mention this reminder to the user/);
  });

  it('has nothing to remind of for an empty list', () => {
    expect(renderTodoReminder([])).toBeUndefined();
    expect(renderTodoSummary([])).toBe('');
  });
});

describe('seed 001 reminder throttle', () => {
  const now = '2026-01-01T00:10:00.000Z';

  it('reminds an agent that never wrote a list itself', () => {
    expect(shouldRemind(undefined, now)).toBe(true);
    expect(shouldRemind(null, now)).toBe(true);
  });

  it('stays quiet right after the agent wrote its own list', () => {
    expect(shouldRemind('2026-01-01T00:09:59.000Z', now)).toBe(false);
    expect(shouldRemind(now, now)).toBe(false);
  });

  it('reminds again once the quiet period has passed', () => {
    const written = new Date(Date.parse(now) - REMINDER_QUIET_MS).toISOString();
    expect(shouldRemind(written, now)).toBe(true);
    expect(shouldRemind('2026-01-01T00:09:59.000Z', now, 500)).toBe(true);
    expect(shouldRemind('2026-01-01T00:09:59.000Z', now, 0)).toBe(true);
  });
});
