import type { z } from 'zod';
import { pythonText } from '../render/python-text.ts';
import { checkedDef } from './schema-walk.ts';

/** Whether a field's schema takes text (a string, or one of a list of them), seen through wrappers and transforms. */
const takesText = (schema: z.core.$ZodType): boolean => {
  const type = checkedDef(schema).type;
  return type === 'string' || type === 'enum';
};

/** The top-level fields of a tool's arguments that take text (none when its schema is not one object). */
export const textFieldsOf = (schema: z.core.$ZodType): ReadonlySet<string> => {
  const { type, shape } = checkedDef(schema);
  if (type !== 'object' || !shape) return new Set();
  return new Set(Object.entries(shape).flatMap(([key, field]) => (takesText(field) ? [key] : [])));
};

const isFalsy = (value: unknown): boolean =>
  value === 0 ||
  value === false ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === 'object' && value !== null && Object.keys(value).length === 0);

/**
 * How seed 000's upstream (jaato, Python) reads a call's text arguments: `value = args.get(name)`, a required one
 * refused with "<name> is required" when `not value`, and any other value used as it is (an f-string prints it). So a
 * number, boolean, list or object where text is expected is served there: here it becomes the text Python prints
 * (`5`, `True`, `{'files': 2}`), and a falsy one (`0`, `false`, `[]`, `{}`) reads as left out, as `if not value` reads
 * it. Only where the schema wants text, at the top level of the call. Returns the same object when nothing changed.
 */
export const pythonTextArgs = (args: unknown, fields: ReadonlySet<string>): unknown => {
  if (typeof args !== 'object' || args === null || Array.isArray(args) || fields.size === 0) return args;
  let copy: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(args)) {
    if (!fields.has(key) || value === null || value === undefined || typeof value === 'string') continue;
    copy ??= { ...(args as Record<string, unknown>) };
    if (isFalsy(value)) delete copy[key];
    else copy[key] = pythonText(value);
  }
  return copy ?? args;
};
