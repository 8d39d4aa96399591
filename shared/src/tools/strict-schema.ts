/**
 * OpenAI's strict mode (Structured Outputs for function calling) accepts a subset of JSON Schema: every object closed
 * (`additionalProperties: false`) with every property required, optional ones made nullable, and no keyword outside
 * the supported set. PlanHub's schemas are richer, so strict definitions are derived from them, and the model's
 * strict calls are turned back (null → omitted, JSON strings → values) before the server validates them as usual.
 */

type Schema = Record<string, unknown>;

const isRecord = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The keywords strict mode accepts (besides structure: type, properties, required, items, anyOf, enum). */
const KEPT = ['description', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const;
const KEPT_MORE = ['multipleOf', 'minItems', 'maxItems'] as const;

/** A value strict mode cannot describe (a free-form object, any JSON): the model sends it as a JSON string. */
const isFreeForm = (schema: Schema): boolean =>
  (schema.type === undefined &&
    schema.anyOf === undefined &&
    schema.enum === undefined &&
    schema.const === undefined) ||
  (schema.type === 'object' && !isRecord(schema.properties) && schema.additionalProperties !== false);

const jsonString = (schema: Schema): Schema => ({
  type: 'string',
  description: `${typeof schema.description === 'string' ? `${schema.description} ` : ''}Encode the value as a JSON string.`,
});

const typesOf = (schema: Schema): string[] =>
  Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];

const nullable = (schema: Schema): Schema => {
  if (Array.isArray(schema.anyOf))
    return (schema.anyOf as Schema[]).some((b) => typesOf(b).includes('null'))
      ? schema
      : { ...schema, anyOf: [...(schema.anyOf as Schema[]), { type: 'null' }] };
  const types = typesOf(schema);
  if (types.includes('null')) return schema;
  const withNull: Schema = { ...schema, type: [...types, 'null'] };
  if (Array.isArray(schema.enum)) withNull.enum = [...(schema.enum as unknown[]), null];
  return withNull;
};

const strictNode = (schema: Schema): Schema => {
  if (isFreeForm(schema)) return jsonString(schema);
  const out: Schema = {};
  for (const key of [...KEPT, ...KEPT_MORE]) if (schema[key] !== undefined) out[key] = schema[key];
  if (schema.const !== undefined) {
    out.enum = [schema.const];
    out.type = typeof schema.const;
  }
  if (schema.type !== undefined) out.type = schema.type;
  if (Array.isArray(schema.enum)) out.enum = schema.enum;
  if (Array.isArray(schema.anyOf)) {
    const branches = (schema.anyOf as unknown[]).filter(isRecord).map(strictNode);
    const seen = new Set<string>();
    // A free-form branch becomes a string: next to a string branch it adds nothing a model could tell apart.
    const distinct = branches.filter((b) => {
      const key = JSON.stringify({ ...b, description: undefined });
      return !seen.has(key) && Boolean(seen.add(key));
    });
    if (distinct.length === 1) return { ...out, ...distinct[0] };
    out.anyOf = distinct;
  }
  if (isRecord(schema.items)) out.items = strictNode(schema.items);
  if (schema.type === 'object') {
    const properties = isRecord(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    out.properties = Object.fromEntries(
      Object.entries(properties)
        .filter((entry): entry is [string, Schema] => isRecord(entry[1]))
        .map(([key, value]) => [key, required.has(key) ? strictNode(value) : nullable(strictNode(value))]),
    );
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  return out;
};

/** The strict-mode form of an object schema (the root of a tool's parameters). */
export const toStrictSchema = (schema: Schema): Schema => strictNode(schema);

const acceptsString = (schema: Schema): boolean =>
  typesOf(schema).includes('string') ||
  (Array.isArray(schema.anyOf) && (schema.anyOf as unknown[]).filter(isRecord).some(acceptsString));

const decodeJson = (value: string): unknown => {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    // Left as it was: the server's validation then names the field and what it expects.
    return value;
  }
};

const TYPE_TESTS: Record<string, (value: unknown) => boolean> = {
  array: Array.isArray,
  object: isRecord,
  number: (value) => typeof value === 'number',
  integer: (value) => typeof value === 'number',
  boolean: (value) => typeof value === 'boolean',
  null: (value) => value === null,
};

/** Whether `value` is of a type `schema` takes; a schema that names no type (free-form, a reference) takes any. */
const takesType = (schema: Schema, value: unknown): boolean => {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as unknown[]).filter(isRecord).some((b) => takesType(b, value));
  const types = typesOf(schema);
  return types.length === 0 || types.some((type) => TYPE_TESTS[type]?.(value) ?? true);
};

const fromStrictNode = (schema: Schema, value: unknown): unknown => {
  if (typeof value === 'string' && !acceptsString(schema)) {
    const decoded = decodeJson(value);
    // A string that decodes to a type the field does not take ("2" where a list goes) is refused either way; kept as
    // sent, the refusal names the type the model sent ("must be an array (got string)"), not the one decoding made.
    // null always passes: it is how strict mode leaves a field out, and the node reads it so.
    return decoded === null || takesType(schema, decoded) ? decoded : value;
  }
  if (Array.isArray(value) && isRecord(schema.items)) {
    const items = schema.items;
    return value.map((v) => fromStrictNode(items, v));
  }
  if (isRecord(value) && isRecord(schema.properties)) {
    const properties = schema.properties;
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const out: Schema = {};
    for (const [key, v] of Object.entries(value)) {
      const property = properties[key];
      // Strict mode sends null for every optional field a call leaves out. A required field keeps its null: the
      // model sent it as a value, and each dialect reads it as its upstream does (001 stores it as "", 000 answers
      // "step_id is required"), where dropping it made every dialect answer "missing".
      if (v === null && isRecord(property) && !required.has(key)) continue;
      out[key] = isRecord(property) ? fromStrictNode(property, v) : v;
    }
    return out;
  }
  if (isRecord(value) && Array.isArray(schema.anyOf)) {
    // The object branch the value fits best: the one that knows most of its keys.
    const objects = (schema.anyOf as unknown[]).filter(isRecord).filter((b) => isRecord(b.properties));
    const score = (b: Schema) => Object.keys(value).filter((k) => k in (b.properties as Schema)).length;
    const best = objects.sort((a, b) => score(b) - score(a))[0];
    if (best) return fromStrictNode(best, value);
  }
  return value;
};

/**
 * A strict-mode call turned back into the arguments the tool's own schema expects: a null for an optional field
 * means "omitted", and a JSON string where the schema wants an object or any value is
 * decoded. Ordinary calls pass through unchanged: the one optional field that takes null (TaskUpdate's metadata)
 * means the same by null as by its absence.
 */
export const fromStrictArgs = (schema: unknown, args: unknown): unknown =>
  isRecord(schema) ? fromStrictNode(schema, args) : args;
