/**
 * OpenAI's strict mode rules for function parameters (Structured Outputs, "Supported schemas"), written as a checker:
 * it returns every breach it finds, with the path where it is.
 */
type Schema = Record<string, unknown>;

const isRecord = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

const TYPES = new Set(['string', 'number', 'boolean', 'integer', 'object', 'array', 'null']);
/** Keywords strict mode accepts; anything else (minLength, default, propertyNames, oneOf, …) is refused. */
const KEYWORDS = new Set([
  'type',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'anyOf',
  '$ref',
  '$defs',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);
const MAX_DEPTH = 10;
const MAX_PROPERTIES = 5000;
const MAX_ENUM = 1000;

export const strictViolations = (root: unknown): string[] => {
  const problems: string[] = [];
  let properties = 0;
  const visit = (schema: unknown, path: string, depth: number): void => {
    if (!isRecord(schema)) return void problems.push(`${path}: not a schema object`);
    if (depth > MAX_DEPTH) problems.push(`${path}: nested deeper than ${MAX_DEPTH} levels`);
    for (const key of Object.keys(schema)) if (!KEYWORDS.has(key)) problems.push(`${path}: keyword "${key}"`);
    const types = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type];
    if (schema.anyOf === undefined && schema.$ref === undefined && schema.type === undefined)
      problems.push(`${path}: no type`);
    for (const t of types)
      if (schema.type !== undefined && !TYPES.has(t as string)) problems.push(`${path}: type ${String(t)}`);
    if (Array.isArray(schema.enum) && schema.enum.length > MAX_ENUM) problems.push(`${path}: enum too long`);
    if (types.includes('object')) {
      if (schema.additionalProperties !== false) problems.push(`${path}: additionalProperties is not false`);
      if (!isRecord(schema.properties)) problems.push(`${path}: object without properties`);
      const keys = isRecord(schema.properties) ? Object.keys(schema.properties) : [];
      properties += keys.length;
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      const missing = keys.filter((k) => !required.includes(k));
      if (missing.length > 0) problems.push(`${path}: not required: ${missing.join(', ')}`);
      for (const key of keys) visit((schema.properties as Schema)[key], `${path}.${key}`, depth + 1);
    }
    if (types.includes('array')) {
      if (!isRecord(schema.items)) problems.push(`${path}: array without items`);
      else visit(schema.items, `${path}[]`, depth + 1);
    }
    if (Array.isArray(schema.anyOf))
      (schema.anyOf as unknown[]).forEach((branch, i) => visit(branch, `${path}|${i}`, depth));
  };
  if (!isRecord(root) || root.type !== 'object') problems.push('root: not type "object"');
  if (isRecord(root) && root.anyOf !== undefined) problems.push('root: anyOf at the root');
  visit(root, 'root', 1);
  if (properties > MAX_PROPERTIES) problems.push(`more than ${MAX_PROPERTIES} properties`);
  return problems;
};

const typesOf = (schema: Schema): unknown[] => (Array.isArray(schema.type) ? schema.type : [schema.type]);

/**
 * The call a model in strict mode makes for `value`: every property present (null when the call leaves it out),
 * and a JSON string wherever the strict schema asks for a string but the value is not one.
 */
export const asStrictCall = (schema: Schema, value: unknown): unknown => {
  const types = typesOf(schema);
  if (types.includes('string') && typeof value !== 'string' && value !== null) return JSON.stringify(value);
  if (isRecord(value) && isRecord(schema.properties)) {
    const props = schema.properties;
    return Object.fromEntries(
      Object.keys(props).map((key) => [key, key in value ? asStrictCall(props[key] as Schema, value[key]) : null]),
    );
  }
  if (Array.isArray(value) && isRecord(schema.items)) {
    const items = schema.items;
    return value.map((v) => asStrictCall(items, v));
  }
  if (Array.isArray(schema.anyOf) && value !== null) {
    const branches = (schema.anyOf as Schema[]).filter((b) => !typesOf(b).includes('null') || b.type !== 'null');
    const fit =
      branches.find((b) => isRecord(value) && isRecord(b.properties)) ??
      branches.find((b) => typesOf(b).includes(Array.isArray(value) ? 'array' : typeof value)) ??
      branches.find((b) => typesOf(b).includes('string'));
    if (fit) return asStrictCall(fit, value);
  }
  return value;
};
