/**
 * JSON text as Python's `json.dumps(value)` writes it with its defaults, for texts a model was shown by Python hosts:
 * `", "` between items and `": "` after keys, every character outside printable ASCII escaped as `\uXXXX` (lowercase
 * hex, astral characters as their surrogate pair; `ensure_ascii`), keys in the object's order. A whole number prints as
 * an int (what Python's json reads from `7`), any other number as Python's float repr (`1e-05`, `2.5e+300`).
 *
 * Limits, because the value has been through JSON.parse: a whole float prints as an int (`1.0` and `1` are one
 * number), integer-like keys come first in ascending order (`{"2":…,"1":…}` prints `{"1": …, "2": …}`), and an
 * integer beyond 2^53 prints the shortest digits that read back as the same double, which are the digits it was
 * sent with unless it was sent with more precision than a double holds.
 */
export const pythonJsonDumps = (value: unknown): string => {
  if (value === null || value === undefined) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'number') return pythonNumber(value);
  if (typeof value === 'string') return pythonString(value);
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  if (typeof value === 'object') {
    // As on the wire: JSON has no undefined, so such keys were never sent.
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${pythonString(k)}: ${pythonJsonDumps(v)}`).join(', ')}}`;
  }
  if (typeof value === 'bigint') return value.toString();
  // Functions and symbols have no JSON form; JSON.stringify writes null for them in a list too.
  return 'null';
};

const SHORT: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

// Per UTF-16 code unit, so an astral character becomes its two escaped surrogates, as Python writes it.
const pythonString = (text: string): string =>
  `"${text.replace(/["\\]|[^ -~]/g, (c) => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;

/**
 * The digits JSON.stringify writes, without an exponent: BigInt(n) would print the double's exact binary value
 * (144115188075855872 for 144115188075855870), not the number that was sent.
 */
const wholeNumber = (n: number): string => {
  const shortest = String(n);
  if (!shortest.includes('e')) return shortest;
  const [mantissa, exponent] = n.toExponential().split('e') as [string, string];
  const sign = mantissa.startsWith('-') ? '-' : '';
  const [int, frac = ''] = mantissa.replace('-', '').split('.') as [string, string?];
  return sign + int + frac.padEnd(Number(exponent), '0');
};

const pythonNumber = (n: number): string => {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
  if (Number.isInteger(n)) return wholeNumber(n);
  // Python's float repr: the shortest digits, in exponent form below 1e-4 (a two-digit exponent at least).
  const [mantissa, exponent] = n.toExponential().split('e') as [string, string];
  const exp = Number(exponent);
  if (exp >= -4) return String(n);
  return `${mantissa}e-${String(-exp).padStart(2, '0')}`;
};
