import { describe, expect, it } from 'vitest';
import { neutralize, renderPlanText, renderTodoBox, renderTodoHtml } from '../src/index.ts';

describe('neutralize', () => {
  it('shows a right-to-left override as a visible code instead of letting it reorder the text', () => {
    expect(neutralize('Approve \u202Eevil\u202C plan')).toBe('Approve [U+202E]evil[U+202C] plan');
  });

  it('replaces isolates, implicit marks and the Arabic letter mark', () => {
    expect(neutralize('a\u2066b\u2069c\u200Ed\u200Fe\u061Cf')).toBe('a[U+2066]b[U+2069]c[U+200E]d[U+200F]e[U+061C]f');
  });

  it('replaces terminal escapes, backspace, a lone carriage return and C1 controls', () => {
    expect(neutralize('\u001b[2Jok\bx\ry\u0085')).toBe('[U+001B][2Jok[U+0008]x[U+000D]y[U+0085]');
  });

  it('keeps tabs and newlines, turns CRLF and line separators into newlines', () => {
    expect(neutralize('a\tb\nc\r\nd\u2028e')).toBe('a\tb\nc\nd\ne');
  });

  it('leaves ordinary text in any script untouched and is idempotent', () => {
    const text = 'Déployer 部署 נסה ✓ 👩‍💻';
    expect(neutralize(text)).toBe(text);
    const once = neutralize('x\u202Ey\u0007');
    expect(neutralize(once)).toBe(once);
  });
});

describe('renderers for people', () => {
  it('neutralise plan titles and step descriptions in the plan text', () => {
    const text = renderPlanText({
      title: 'Ship \u202Egnol\u202C',
      status: 'in_progress',
      steps: [{ id: 'step_1', description: 'run\u001b[31m', status: 'pending' } as never],
    });
    expect(text).toContain('Ship [U+202E]gnol[U+202C]');
    expect(text).toContain('step_1: run[U+001B][31m');
    expect(text.includes('\u202e') || text.includes('\u001b')).toBe(false);
  });

  it('neutralise todo contents in the terminal box and the HTML list', () => {
    const todos = [{ content: 'pay \u202E001$\u202C', status: 'pending' as const }];
    expect(renderTodoBox(todos, { color: false })).toContain('pay [U+202E]001$[U+202C]');
    expect(renderTodoHtml(todos)).toContain('pay [U+202E]001$[U+202C]');
  });

  it('shows the zero-width characters that join nothing, and keeps those scripts and emoji need', () => {
    expect(neutralize('appr\u200bove\u2060 \ufeffok')).toBe('appr[U+200B]ove[U+2060] [U+FEFF]ok');
    const family = '\u{1F468}\u200d\u{1F469}\u200d\u{1F467}';
    expect(neutralize(`${family} \u0645\u200c\u06cc`)).toBe(`${family} \u0645\u200c\u06cc`);
  });
});
