import type { z } from 'zod';
import { pythonText } from './render/python-text.ts';
import { TODO_LIST_ACTIONS } from './shapes/todo-list.ts';

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

/** A caller's value quoted in a sentence is cut short, so that the sentence stays readable. */
const clipped = (text: string): string => (text.length > 60 ? `${text.slice(0, 60)}…` : text);

const shown = (value: unknown): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? String(value) : clipped(text);
};

/** What a wrong value is, for "(got …)": Infinity and NaN by name, as "a number (got number)" tells nobody anything. */
const typeOf = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : typeof value === 'number' && !Number.isFinite(value)
        ? String(value)
        : typeof value;

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

const unitOf = (origin: string) =>
  origin === 'string' ? 'characters' : origin === 'array' || origin === 'set' ? 'items' : '';

/** How an argument is wrong, as far as a seed system's own wording tells cases apart. */
type Fault = 'missing' | 'null' | 'empty' | 'not_array' | 'wrong_type';

const faultOf = (issue: Issue, value: unknown): Fault | undefined => {
  // An item of a list is never "missing" or "empty" itself: its list names the fault ("all steps must be strings").
  const item = isIndex(issue.path.at(-1));
  if (issue.code === 'invalid_type' || issue.code === 'invalid_value') {
    if (value === undefined) return 'missing';
    if (item) return undefined;
    if (value === null) return 'null';
    if (value === '') return 'empty';
    if (issue.code === 'invalid_value') return undefined;
    return issue.expected === 'array' ? 'not_array' : 'wrong_type';
  }
  if (issue.code === 'too_small' && Number(issue.minimum) <= 1 && !item) return 'empty';
  return undefined;
};

interface UpstreamWording {
  tool: string;
  field: string;
  faults: readonly Fault[];
  text: string | ((value: unknown) => string);
  /** Whether a value of the wrong type is named after the text: "(got string)". */
  showType?: true;
}

/**
 * Seed 000's fields that upstream checks with Python's `if not value`: a null or an empty string (a blank title or
 * description too, which PlanHub trims) is missing there, answered "<field> is required". `output` is checked with
 * `is None`, so only null is missing (an empty object is an output).
 */
const FALSY_IS_MISSING: ReadonlyArray<readonly [tool: string, field: string, faults?: readonly Fault[]]> = [
  ['createPlan', 'title'],
  ['setStepStatus', 'step_id'],
  ['setStepStatus', 'status'],
  ['completePlan', 'status'],
  ['addStep', 'description'],
  ['addDependentStep', 'step_id'],
  // The seed-era form; a call that names no description at all is worded below, after upstream's current form.
  ['addDependentStep', 'description', ['null', 'empty']],
  ['completeStepWithOutput', 'step_id'],
  ['completeStepWithOutput', 'output', ['missing', 'null']],
  ['unsubscribe', 'subscription_id'],
];

/**
 * The seed systems' own words for an argument that is missing or wrong, where they differ from the generic sentence
 * (hosts and models were tuned on them). `field` is the path without item indices ("depends_on.agent_id").
 */
const UPSTREAM_WORDINGS: readonly UpstreamWording[] = [
  ...FALSY_IS_MISSING.map(([tool, field, faults = ['missing', 'null', 'empty'] as const]) => ({
    tool,
    field,
    faults,
    text: `${field} is required`,
  })),
  // Upstream's current addDependentStep takes the step_id of an existing step and asks for it first; PlanHub also
  // takes the seed's form, which creates the step from a description.
  {
    tool: 'addDependentStep',
    field: 'description',
    faults: ['missing'],
    text:
      'step_id is required (the step of yours that should wait), or pass description instead to create a new step ' +
      'that waits',
  },
  {
    tool: 'createPlan',
    field: 'steps',
    faults: ['not_array', 'null', 'empty'],
    text: 'steps must be a non-empty array',
    showType: true,
  },
  {
    tool: 'subscribeToTasks',
    field: 'event_types',
    faults: ['missing', 'null', 'empty'],
    text: 'event_types is required',
  },
  {
    tool: 'addDependentStep',
    field: 'depends_on',
    faults: ['missing', 'null', 'empty'],
    text: 'depends_on is required and must not be empty',
  },
  ...(['agent_id', 'step_id'] as const).map((key) => ({
    tool: 'addDependentStep',
    field: `depends_on.${key}`,
    faults: ['missing', 'null', 'empty'] as const,
    text: 'Each dependency must have agent_id and step_id',
  })),
  // Upstream prints whatever action it got (a missing one as Python's None) and names the valid ones.
  {
    tool: 'todo',
    field: 'action',
    faults: ['missing', 'null', 'wrong_type'],
    text: (value) => `Unknown action: ${clipped(pythonText(value))}. Valid actions: ${TODO_LIST_ACTIONS.join(', ')}`,
  },
  // Upstream's Go tools read a missing taskId as "" and refuse it as a malformed id.
  ...(['TaskGet', 'TaskUpdate'] as const).map((tool) => ({
    tool,
    field: 'taskId',
    faults: ['missing', 'null'] as const,
    text: `${tool} validate task ID failed, err: invalid format: (taskId is required)`,
  })),
  {
    tool: 'todo_write',
    field: 'todos',
    faults: ['missing', 'null', 'empty', 'not_array'],
    text: "todo_write requires a 'todos' argument (array)",
  },
];

const upstreamWording = (tool: string | undefined, issue: Issue, value: unknown): string | undefined => {
  if (tool === undefined) return undefined;
  const fault = faultOf(issue, value);
  if (fault === undefined) return undefined;
  const field = issue.path
    .filter((key) => !isIndex(key))
    .map(String)
    .join('.');
  const wording = UPSTREAM_WORDINGS.find((w) => w.tool === tool && w.field === field && w.faults.includes(fault));
  if (wording === undefined) return undefined;
  const text = typeof wording.text === 'string' ? wording.text : wording.text(value);
  return (fault === 'not_array' || fault === 'null') && wording.showType ? `${text} (got ${typeOf(value)})` : text;
};

/**
 * One validation issue as a plain sentence that names the field, in upstream's wording where the seed systems have
 * one ("title is required", "steps must be a non-empty array", "Invalid status: done. Must be one of: …"), for the
 * arguments of `tool` when it is given. zod's own wording never reaches a model.
 */
export const issueSentence = (issue: Issue, value: unknown, tool?: string): string => {
  const { path } = issue;
  const field = fieldName(path);
  const last = path.at(-1);
  const upstream = upstreamWording(tool, issue, value);
  if (upstream !== undefined) return upstream;
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'array' && !isIndex(last))
        return value === undefined
          ? `${field} must be a non-empty array`
          : `${field} must be an array (got ${typeOf(value)})`;
      if (value === undefined && !isIndex(last)) return `${field} is required`;
      if (isIndex(last)) return `all ${field} must be ${issue.expected}s (item ${last} is ${typeOf(value)})`;
      return `${field} must be ${article(issue.expected)} (got ${typeOf(value)})`;
    case 'invalid_value':
      if (value === undefined && !isIndex(last)) return `${field} is required`;
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
      // A refinement's own message (a schema's reason, such as an agent id no agent can connect as) is kept: its code
      // alone says only "not valid".
      const sentence = (i: (typeof closest)[number]) =>
        i.code === 'custom' && i.message
          ? `${fieldName([...path, ...i.path])}: ${i.message}`
          : issueSentence({ ...i, path: [...path, ...i.path] }, valueAt(value, i.path), tool);
      return closest.length > 0
        ? closest
            .map(sentence)
            .filter((sentence, i, all) => all.indexOf(sentence) === i)
            .join('; ')
        : `${field} matches none of the accepted forms`;
    }
    default:
      return `${field} is not valid`;
  }
};

/**
 * The per-parse error map for the arguments of `tool` (of a call envelope when undefined): zod's default wording is
 * replaced by the plain sentence, while a schema's own message (PlanHub's or a dialect's wording) is kept, since
 * schema-level messages take precedence.
 */
export const argumentErrorMap =
  (tool?: string) =>
  (issue: z.core.$ZodRawIssue): string =>
    issueSentence({ ...issue, path: issue.path ?? [], message: '' }, issue.input, tool);

/** The error map for anything that is not one tool's arguments. */
export const plainErrorMap = argumentErrorMap();

/**
 * safeParse with an error map, paying for the map only when the input is invalid. zod's parse takes about 2 µs
 * more per schema when given a map, valid input or not (measured: a call envelope 1.4 → 3.6 µs, setStepStatus's
 * arguments 0.4 → 2.5 µs); the map only words the refusal, and parsing is pure, so an invalid input parsed again
 * with it gives the same issues.
 */
export const parseArguments = <S extends z.ZodType>(
  schema: S,
  value: unknown,
  error: ReturnType<typeof argumentErrorMap>,
): z.ZodSafeParseResult<z.output<S>> => {
  const valid = schema.safeParse(value);
  return valid.success ? valid : schema.safeParse(value, { error });
};

/**
 * Validation issues as `{ path, message }` details. A message the error map wrote is a sentence already; a schema's
 * own message gets its field path in front so the model knows which item it is about.
 */
export const plainIssues = (issues: readonly Issue[], args: unknown, tool?: string) =>
  issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const plain = issue.message === issueSentence(issue, valueAt(args, issue.path), tool);
    return { path, message: plain || path === '' ? issue.message : `${path}: ${issue.message}` };
  });
