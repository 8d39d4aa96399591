import { pythonJsonDumps } from './python-json.ts';

/**
 * A value as upstream's Python prints it in an f-string (its str()), for texts models were shown by Python hosts and
 * servers: text as it is, `None`, `True` and `False` by name, numbers as Python prints them (`1e-05`, not JS's
 * `0.00001`), lists and objects as their repr (`['a', None]`). A value read from JSON cannot tell 1.0 from 1, and an
object's integer-like keys come first (`{'2': 2, 'b': 1}` where Python kept the order sent): JSON.parse orders them.
 *
 * A string prints as it is, and repr keeps the printable characters outside ASCII (`'é'`), so a caller that makes text
 * safe or short applies that to the result.
 */
export const pythonText = (value: unknown): string => {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  return pythonRepr(value);
};

/** Python's `isprintable()` is false for these (control, format, separators but the space, unassigned, private use). */
const UNPRINTABLE = /[\p{C}\p{Z}]/u;

const escaped = (code: number): string =>
  code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : code < 0x10000
      ? `\\u${code.toString(16).padStart(4, '0')}`
      : `\\U${code.toString(16).padStart(8, '0')}`;

const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A string as Python's repr() writes it: single quotes unless it holds one and no double quote. */
const reprString = (text: string): string => {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of text) {
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) out += short;
    else if (ch === quote) out += `\\${ch}`;
    else if (ch !== ' ' && UNPRINTABLE.test(ch)) out += escaped(ch.codePointAt(0) ?? 0);
    else out += ch;
  }
  return `${quote}${out}${quote}`;
};

/**
 * A value as Python's repr() writes it, as an f-string prints a list or a dict: `['a', None]`, `{'k': True}`. Numbers
 * print as Python prints them (through pythonJsonDumps, which writes them alike).
 */
const pythonRepr = (value: unknown): string => {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return reprString(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${reprString(k)}: ${pythonRepr(v)}`).join(', ')}}`;
  }
  return pythonJsonDumps(value);
};
