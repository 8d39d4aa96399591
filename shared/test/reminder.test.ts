import { describe, expect, it } from 'vitest';
import type { ReminderTodo } from '../src/render/reminder.ts';
import {
  REMINDER_QUIET_MS,
  renderTodoLines,
  renderTodoReminder,
  renderTodoSummary,
  REMINDER_PREAMBLE,
  usedRecently,
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

  it("builds upstream's block: preamble, the list under its heading, then the silent note", () => {
    const todos = [
      item('Research auth', 'Researching auth', 'completed'),
      item('Design flow', 'Designing flow', 'in_progress'),
      item('Write tests', 'Writing tests', 'pending'),
    ];
    expect(renderTodoReminder(todos)).toBe(
      [
        '<system-reminder source="hooks-todo-reminder">',
        REMINDER_PREAMBLE,
        // Upstream appends "\n\nHere are …" and joins the parts with "\n": three newlines after the preamble.
        '\n\nHere are the existing contents of your todo list:',
        '✓ Research auth\n→ Designing flow\n☐ Write tests',
        '',
        'Progress: ✓1 done, →2 in progress, ☐3 pending',
        '',
        'DO NOT mention this reminder to the user. They can see your task progress in the UI. Process this silently ' +
          'and continue your work.',
        '</system-reminder>',
      ].join('\n'),
    );
    expect(REMINDER_PREAMBLE).toMatch(/^The todo tool hasn't been used recently\./);
  });

  it('leaves the preamble out when the todo tool was used recently (the upstream bug, fixed)', () => {
    const todos = seedList(['completed', 'in_progress', 'pending', 'pending', 'pending']);
    const block = renderTodoReminder(todos, { usedRecently: true }) ?? '';
    expect(block.startsWith(`<system-reminder source="hooks-todo-reminder">\n${renderTodoLines(todos)}\n`)).toBe(true);
    expect(block).not.toContain(REMINDER_PREAMBLE);
    expect(block.endsWith('\n</system-reminder>')).toBe(true);
    expect(block).toContain(`Progress: ${renderTodoSummary(todos)}`);
  });

  it('says nothing after recent use of an empty list, and gives only the preamble otherwise', () => {
    expect(renderTodoReminder([], { usedRecently: true })).toBeUndefined();
    const gentle = renderTodoReminder([]) ?? '';
    expect(gentle).toContain(REMINDER_PREAMBLE);
    expect(gentle).not.toContain('Here are the existing contents');
    expect(renderTodoSummary([])).toBe('');
  });
});

describe('seed 001 "used recently" without a host to say so', () => {
  const now = '2026-01-01T00:10:00.000Z';

  it('does not count an agent that never wrote a list itself', () => {
    expect(usedRecently(undefined, now)).toBe(false);
    expect(usedRecently(null, now)).toBe(false);
  });

  it('counts a write of the list right before', () => {
    expect(usedRecently('2026-01-01T00:09:59.000Z', now)).toBe(true);
    expect(usedRecently(now, now)).toBe(true);
  });

  it('stops counting it once the quiet period has passed', () => {
    const written = new Date(Date.parse(now) - REMINDER_QUIET_MS).toISOString();
    expect(usedRecently(written, now)).toBe(false);
    expect(usedRecently('2026-01-01T00:09:59.000Z', now, 500)).toBe(false);
    expect(usedRecently('2026-01-01T00:09:59.000Z', now, 0)).toBe(false);
  });
});
