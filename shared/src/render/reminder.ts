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

/** Upstream's "gentle reminder" preamble, given when the todo tool has not been used recently. */
export const REMINDER_PREAMBLE =
  "The todo tool hasn't been used recently. If you're working on tasks that would benefit from tracking progress, " +
  'consider using the todo tool to track progress. Also consider cleaning up the todo list if it has become stale ' +
  "and no longer matches what you are working on. Only use it if it's relevant to the current work. This is just a " +
  'gentle reminder - ignore if not applicable. Make sure that you NEVER mention this reminder to the user.';

/**
 * The `<system-reminder source="hooks-todo-reminder">` block a host injects before each model request, as upstream's
 * hook builds it: the preamble only when the todo tool was not used recently (upstream looked for a tool name that
 * never occurs, so it always added it; fixed here), then the list with the seed's one-line progress. Undefined when
 * there is nothing to say (the tool was used recently and the list is empty). Pure: SDK, CLI and server agree.
 */
export const renderTodoReminder = (
  todos: readonly ReminderTodo[],
  options: { usedRecently?: boolean } = {},
): string | undefined => {
  const usedRecently = options.usedRecently ?? false;
  if (usedRecently && todos.length === 0) return undefined;
  const list = todos.length === 0 ? [] : [renderTodoLines(todos), '', `Progress: ${renderTodoSummary(todos)}`];
  const text = usedRecently
    ? list
    : [
        REMINDER_PREAMBLE,
        ...(todos.length === 0 ? [] : ['\n\nHere are the existing contents of your todo list:', ...list]),
      ];
  return ['<system-reminder source="hooks-todo-reminder">', ...text, '', SILENT, '</system-reminder>'].join('\n');
};

/** How long after the agent's own write of its list no reminder is due: it has just seen the list it wrote. */
export const REMINDER_QUIET_MS = 30_000;

/**
 * Whether the todo tool counts as "used recently" when the host cannot say (upstream tracks the last three tool
 * calls): the agent's own last write is fresher than `quietMs`. Times are ISO-8601 strings.
 */
export const usedRecently = (
  lastWriteByAgentAt: string | undefined | null,
  now: string,
  quietMs: number = REMINDER_QUIET_MS,
): boolean => {
  if (lastWriteByAgentAt === undefined || lastWriteByAgentAt === null) return false;
  const written = Date.parse(lastWriteByAgentAt);
  if (Number.isNaN(written)) return false;
  return Date.parse(now) - written < quietMs;
};
