import { describe, expect, it } from 'vitest';
import { renderTodoBox, renderTodoHtml } from '../src/render/todo-box.ts';

const ESC = String.fromCharCode(27);

const TODOS = [
  { content: 'Research auth requirements', status: 'completed' as const },
  { content: 'Design auth flow', status: 'in_progress' as const },
  { content: 'Write tests', status: 'pending' as const },
];

describe('002 todo renders', () => {
  it('draws the box with ✓ / ▶ / ○ and aligned borders', () => {
    const lines = renderTodoBox(TODOS, { color: false }).split('\n');
    expect(lines).toEqual([
      '╭─ Tasks ──────────────────────╮',
      '│ ✓ Research auth requirements │',
      '│ ▶ Design auth flow           │',
      '│ ○ Write tests                │',
      '╰──────────────────────────────╯',
    ]);
    expect(renderTodoBox([], { color: false })).toContain('No tasks');
  });

  it('styles completed items struck through and the item in progress bold', () => {
    const text = renderTodoBox(TODOS);
    expect(text).toContain('\u001b[2m\u001b[9mResearch auth requirements\u001b[0m');
    expect(text).toContain('\u001b[1mDesign auth flow\u001b[0m');
    const visible = text.replace(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '');
    expect(visible).toBe(renderTodoBox(TODOS, { color: false }));
  });

  it('cuts long items and flattens newlines so the box stays one row per item', () => {
    const text = renderTodoBox([{ content: `a\nb ${'x'.repeat(300)}`, status: 'pending' }], {
      color: false,
      maxContent: 20,
    });
    expect(text.split('\n')).toHaveLength(3);
    expect(text).toContain('○ a b xxxxxxxxxxxxxxx…');
  });

  it('renders escaped HTML with one class per status', () => {
    const html = renderTodoHtml([...TODOS, { content: '<script>x</script>', status: 'pending' }]);
    expect(html).toContain(
      '<li class="todo-item todo-completed"><span class="todo-icon">✓</span> <s>Research auth requirements</s></li>',
    );
    expect(html).toContain('class="todo-item todo-in-progress"');
    expect(html).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(html).not.toContain('<script>');
    expect(renderTodoHtml([])).toContain('No tasks');
  });
});
