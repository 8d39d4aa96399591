import { describe, expect, it } from 'vitest';
import { parseStoredJson } from '../src/store/parsed-json.ts';

const longDoc = (marker: string) =>
  JSON.stringify({ marker, step_ids: Array.from({ length: 600 }, (_, i) => `s${i}`) });

describe('stored JSON parsed once per text', () => {
  it('shares one frozen value while the text at a key and version stays the same', () => {
    const text = longDoc('a');
    const first = parseStoredJson(text, 'ws\u0000plan:p1@3');
    // A copy of the text, as each read from a store brings a new string.
    const again = parseStoredJson(`${text} `.trimEnd(), 'ws\u0000plan:p1@3');
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen((first as { step_ids: string[] }).step_ids)).toBe(true);
  });

  it('never hands out a value for other text, even at the same key and version', () => {
    const before = parseStoredJson(longDoc('before'), 'ws\u0000plan:p2@1');
    // A wiped store that wrote the key again reuses its version with other text.
    const after = parseStoredJson(longDoc('after'), 'ws\u0000plan:p2@1');
    expect(after).not.toBe(before);
    expect((after as { marker: string }).marker).toBe('after');
    expect((parseStoredJson(longDoc('before'), 'ws\u0000plan:p2@1') as { marker: string }).marker).toBe('before');
  });

  it('parses short text anew each time, unfrozen', () => {
    const text = JSON.stringify({ small: true });
    const value = parseStoredJson(text, 'ws\u0000agent:a@1');
    expect(parseStoredJson(text, 'ws\u0000agent:a@1')).not.toBe(value);
    expect(Object.isFrozen(value)).toBe(false);
  });
});
