import type { z } from 'zod';

type Issue = z.core.$ZodIssue;
type Path = readonly PropertyKey[];

const isIndex = (key: PropertyKey | undefined): key is number => typeof key === 'number';

/** The value the caller sent at a path (zod's issues do not carry it unless asked to). */
const valueAt = (args: unknown, path: Path): unknown => {
  let at: unknown = args;
  for (const key of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
};

/** "steps.2" names the field "steps"; an item of event_types is "event type" (upstream's "Invalid event type: X"). */
const fieldName = (path: Path): string => {
  const named = isIndex(path.at(-1)) ? path.slice(0, -1) : path;
  return named.map(String).join('.') || 'arguments';
};
const itemName = (path: Path): string => fieldName(path).split('.').at(-1)!.replace(/_/g, ' ').replace(/s$/, '');

const shown = (value: unknown): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 60)}…` : text;
};

const typeOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

const unitOf = (origin: string) =>
  origin === 'string' ? 'characters' : origin === 'array' || origin === 'set' ? 'items' : '';

/**
 * One validation issue as a plain sentence that names the field, in upstream's wording where the seed systems have
 * one ("title is required", "steps must be a non-empty array", "Invalid status: done. Must be one of: …"). zod's own
 * wording never reaches a model.
 */
export const issueSentence = (issue: Issue, value: unknown): string => {
  const { path } = issue;
  const field = fieldName(path);
  const last = path.at(-1);
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'array' && !isIndex(last))
        return `${field} must be a non-empty array${value === undefined ? '' : ` (got ${typeOf(value)})`}`;
      if (value === undefined && !isIndex(last)) return `${field} is required`;
      if (isIndex(last)) return `all ${field} must be ${issue.expected}s (item ${last} is ${typeOf(value)})`;
      return `${field} must be ${article(issue.expected)} (got ${typeOf(value)})`;
    case 'invalid_value':
      return isIndex(last)
        ? `Invalid ${itemName(path)}: ${shown(value)}. Must be one of: ${issue.values.map(String).join(', ')}`
        : `Invalid ${field}: ${shown(value)}. Must be one of: ${issue.values.map(String).join(', ')}`;
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'array' && min <= 1) return `${field} must be a non-empty array`;
      if (issue.origin === 'string' && min <= 1) return `${field} must not be empty`;
      const unit = unitOf(issue.origin);
      return `${field} must be at least ${min}${unit ? ` ${unit}` : ''}`;
    }
    case 'too_big': {
      const unit = unitOf(issue.origin);
      return unit
        ? `${field} is too long (at most ${String(issue.maximum)} ${unit})`
        : `${field} must be at most ${String(issue.maximum)}`;
    }
    case 'unrecognized_keys':
      return `Unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}${path.length > 0 ? ` in ${field}` : ''}`;
    case 'invalid_format':
      return `${field} must be a valid ${issue.format}`;
    case 'invalid_union': {
      // The accepted form that came closest is the one the caller most likely meant.
      const closest = [...issue.errors].sort((a, b) => a.length - b.length)[0] ?? [];
      return closest.length > 0
        ? closest.map((i) => issueSentence({ ...i, path: [...path, ...i.path] }, valueAt(value, i.path))).join('; ')
        : `${field} matches none of the accepted forms`;
    }
    default:
      return `${field} is not valid`;
  }
};

/**
 * The per-parse error map for tool arguments: zod's default wording is replaced by the plain sentence, while a
 * schema's own message (PlanHub's or a dialect's wording) is kept, since schema-level messages take precedence.
 */
export const plainErrorMap = (issue: z.core.$ZodRawIssue): string =>
  issueSentence({ ...issue, path: issue.path ?? [], message: '' }, issue.input);

/**
 * Validation issues as `{ path, message }` details. A message the error map wrote is a sentence already; a schema's
 * own message gets its field path in front so the model knows which item it is about.
 */
export const plainIssues = (issues: readonly Issue[], args: unknown) =>
  issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const plain = issue.message === issueSentence(issue, valueAt(args, issue.path));
    return { path, message: plain || path === '' ? issue.message : `${path}: ${issue.message}` };
  });
