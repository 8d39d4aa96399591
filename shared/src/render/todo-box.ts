import { neutralize } from './neutralize.ts';

/** What the renderers need of a todo item (002 items, and any list with the same three statuses). */
export interface RenderableTodo {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
}

const ESC = '\u001b[';
const RESET = `${ESC}0m`;
const STYLE = {
  bold: `${ESC}1m`,
  dim: `${ESC}2m`,
  strike: `${ESC}9m`,
  green: `${ESC}32m`,
  yellow: `${ESC}33m`,
  cyan: `${ESC}36m`,
} as const;

export interface TodoBoxOptions {
  /** ANSI styling (default true); false gives the same box in plain text, for logs and tests. */
  color?: boolean;
  title?: string;
  /** Longest content shown before it is cut with "…", so a huge item cannot blow up the terminal. */
  maxContent?: number;
}

/** Terminal columns of a string: code points, control characters removed (the icons used here are one column). */
const width = (s: string): number => [...s].filter((c) => c.charCodeAt(0) >= 0x20 && c !== '\u007f').length;

const clip = (s: string, max: number): string => {
  const flat = neutralize(s).replace(/\s+/g, ' ').trim();
  return width(flat) <= max ? flat : `${[...flat].slice(0, max - 1).join('')}…`;
};

/**
 * Seed 002's CLI box: ✓ completed (struck through), ▶ in progress (bold), ○ pending. Pure: the same input always gives
 * the same text, so the CLI, the SDK and tests share it.
 */
export const renderTodoBox = (todos: readonly RenderableTodo[], options: TodoBoxOptions = {}): string => {
  const color = options.color ?? true;
  const paint = (text: string, ...styles: (keyof typeof STYLE)[]) =>
    color && styles.length > 0 ? `${styles.map((s) => STYLE[s]).join('')}${text}${RESET}` : text;
  const title = neutralize(options.title ?? 'Tasks');
  const max = options.maxContent ?? 100;
  const rows = todos.map((todo) => {
    const text = clip(todo.content, max);
    if (todo.status === 'completed')
      return { plain: `✓ ${text}`, styled: `${paint('✓', 'dim', 'green')} ${paint(text, 'dim', 'strike')}` };
    if (todo.status === 'in_progress')
      return { plain: `▶ ${text}`, styled: `${paint('▶', 'bold', 'yellow')} ${paint(text, 'bold')}` };
    return { plain: `○ ${text}`, styled: `${paint('○', 'dim')} ${text}` };
  });
  if (rows.length === 0) rows.push({ plain: 'No tasks', styled: paint('No tasks', 'dim') });
  const inner = Math.max(width(title) + 4, ...rows.map((r) => width(r.plain) + 2), 20);
  const top = `╭─ ${title} ${'─'.repeat(inner - width(title) - 3)}╮`;
  const border = (s: string) => paint(s, 'cyan');
  return [
    border(top),
    ...rows.map((r) => `${border('│')} ${r.styled}${' '.repeat(inner - width(r.plain) - 1)}${border('│')}`),
    border(`╰${'─'.repeat(inner)}╯`),
  ].join('\n');
};

const escapeHtml = (s: string): string =>
  neutralize(s).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

const HTML_ROW = {
  completed: (text: string) =>
    `<li class="todo-item todo-completed"><span class="todo-icon">✓</span> <s>${text}</s></li>`,
  in_progress: (text: string) =>
    `<li class="todo-item todo-in-progress"><span class="todo-icon">▶</span> <strong>${text}</strong></li>`,
  pending: (text: string) => `<li class="todo-item todo-pending"><span class="todo-icon">○</span> ${text}</li>`,
} as const;

/** The dashboard's rendering: an HTML list with one CSS class per status; every text is escaped. */
export const renderTodoHtml = (todos: readonly RenderableTodo[], title = 'Tasks'): string => {
  if (todos.length === 0)
    return `<div class="todo-list todo-empty"><div class="todo-title">${escapeHtml(title)}</div><p>No tasks</p></div>`;
  const items = todos.map((t) => HTML_ROW[t.status](escapeHtml(t.content))).join('');
  return `<div class="todo-list"><div class="todo-title">${escapeHtml(title)}</div><ul>${items}</ul></div>`;
};
