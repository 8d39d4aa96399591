/**
 * JSON text as Python's `json.dumps(value)` writes it with its defaults, for texts a model was shown by Python hosts:
 * `", "` between items and `": "` after keys, every character outside printable ASCII escaped as `\uXXXX` (lowercase
 * hex, astral characters as their surrogate pair; `ensure_ascii`), keys in insertion order. A whole number prints as
 * an int (what Python's json reads from `7`), any other number as Python's float repr (`1e-05`, `2.5e+300`).
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

const pythonNumber = (n: number): string => {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
  if (Number.isInteger(n)) return BigInt(n).toString();
  // Python's float repr: the shortest digits, in exponent form below 1e-4 (a two-digit exponent at least).
  const [mantissa, exponent] = n.toExponential().split('e') as [string, string];
  const exp = Number(exponent);
  if (exp >= -4) return String(n);
  return `${mantissa}e-${String(-exp).padStart(2, '0')}`;
};
