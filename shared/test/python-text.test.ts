import { describe, expect, it } from 'vitest';
import { pythonText } from '../src/render/python-text.ts';

// Expected texts are python3's own: print(f'{value}') for the value json.loads reads from the same JSON.
describe('pythonText: a value as Python prints it in an f-string', () => {
  it('prints text as it is, without quotes or escapes', () => {
    expect(pythonText('step_1')).toBe('step_1');
    expect(pythonText('a "b"\nc é')).toBe('a "b"\nc é');
    expect(pythonText('')).toBe('');
  });

  it("names None, True and False as Python does, and reads a missing value as None (upstream's .get())", () => {
    expect(pythonText(null)).toBe('None');
    expect(pythonText(undefined)).toBe('None');
    expect(pythonText(true)).toBe('True');
    expect(pythonText(false)).toBe('False');
  });

  it("prints numbers as Python's str() does, not as JavaScript's String()", () => {
    expect(pythonText(7)).toBe('7');
    expect(pythonText(-0.5)).toBe('-0.5');
    expect(pythonText(0.00001)).toBe('1e-05');
    expect(pythonText(1.5e-7)).toBe('1.5e-07');
    expect(pythonText(66.7)).toBe('66.7');
  });

  it("prints lists and objects as Python's repr writes them", () => {
    expect(pythonText([1, 'a'])).toBe("[1, 'a']");
    expect(pythonText({ k: 'é' })).toBe("{'k': 'é'}");
    expect(pythonText([null, true, false, 1.5, 1e-5])).toBe('[None, True, False, 1.5, 1e-05]');
    expect(pythonText(["it's"])).toBe(`["it's"]`);
    expect(pythonText(['both \' and "'])).toBe(`['both \\' and "']`);
    expect(pythonText(['tab\tnl\nbs\\'])).toBe("['tab\\tnl\\nbs\\\\']");
    expect(pythonText(['\u0000\u007f\u0085\u00a0 \u2028\u{1f600}\u200b'])).toBe(
      "['\\x00\\x7f\\x85\\xa0 \\u2028\u{1f600}\\u200b']",
    );
    expect(pythonText({ "k'": [{}] })).toBe(`{"k'": [{}]}`);
  });
});
