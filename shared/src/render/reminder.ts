/** Seed 001's todo item; extra keys a model adds are kept as they are. */
export interface ReminderTodo {
  content: string;
  activeForm: string;
  status: 'pending' | 'in_progress' | 'completed';
}

const SYMBOL = { completed: '✓', in_progress: '→', pending: '☐' } as const;
const WORD = { completed: 'done', in_progress: 'in progress', pending: 'pending' } as const;

/** One line per item, as the TodoWrite display: `✓ content`, `→ activeForm` (in progress), `☐ content`. */
export const renderTodoLines = (todos: readonly ReminderTodo[]): string =>
  todos.map((t) => `${SYMBOL[t.status]} ${t.status === 'in_progress' ? t.activeForm : t.content}`).join('\n');

/**
 * The seed's one-line form: each item by its 1-based number, e.g. `✓1 done, ✓2 done, ☐3 pending` (what the seed
 * shows the AI seeing); an item in progress reads `→2 in progress`.
 */
export const renderTodoSummary = (todos: readonly ReminderTodo[]): string =>
  todos.map((t, i) => `${SYMBOL[t.status]}${i + 1} ${WORD[t.status]}`).join(', ');

const SILENT =
  'DO NOT mention this reminder to the user. They can see your task progress in the UI. Process this silently and ' +
  'continue your work.';

/**
 * The `<system-reminder source="hooks-todo-reminder">` block a host injects before a model request, or undefined when
 * there is nothing to remind of (no todos). Pure: the SDK, the CLI and the server render the same text.
 */
export const renderTodoReminder = (todos: readonly ReminderTodo[]): string | undefined => {
  if (todos.length === 0) return undefined;
  return [
    '<system-reminder source="hooks-todo-reminder">',
    'Here are the existing contents of your todo list:',
    renderTodoLines(todos),
    '',
    `Progress: ${renderTodoSummary(todos)}`,
    '',
    SILENT,
    '</system-reminder>',
  ].join('\n');
};

/** How long after the agent's own write of its list no reminder is due: it has just seen the list it wrote. */
export const REMINDER_QUIET_MS = 30_000;

/**
 * The throttle of seed 001's reminder (upstream checked for a tool name that never occurs, so it never throttled):
 * no reminder while the agent's own last write is fresher than `quietMs`. Times are ISO-8601 strings.
 */
export const shouldRemind = (
  lastWriteByAgentAt: string | undefined | null,
  now: string,
  quietMs: number = REMINDER_QUIET_MS,
): boolean => {
  if (lastWriteByAgentAt === undefined || lastWriteByAgentAt === null) return true;
  const written = Date.parse(lastWriteByAgentAt);
  if (Number.isNaN(written)) return true;
  return Date.parse(now) - written >= quietMs;
};
