import { pythonJsonDumps } from './python-json.ts';

/**
 * A value as upstream's Python prints it in an f-string (its str()), for texts models were shown by Python hosts and
 * servers: text as it is, `None`, `True` and `False` by name, numbers as Python prints them (`1e-05`, not JS's
 * `0.00001`). Lists and objects print as json.dumps writes them where Python would print their repr (`['a']`): the
 * callers read fields that upstream fills with scalars, and a value read from JSON cannot tell 1.0 from 1 anyway.
 *
 * Only a string can hold a newline or a character outside printable ASCII (json.dumps escapes them), so a caller that
 * makes text safe or short applies that to the result.
 */
export const pythonText = (value: unknown): string => {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  // A number prints the same through str() and json.dumps in Python.
  return pythonJsonDumps(value);
};
