/** A tool's input as model APIs take it: a plain object schema at the root. */
export type JsonSchemaObject = { type: 'object'; properties: Record<string, unknown>; [key: string]: unknown };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const branchesOf = (schema: unknown): unknown[] | undefined => {
  if (!isRecord(schema)) return undefined;
  const branches = schema.anyOf ?? schema.oneOf;
  return Array.isArray(branches) ? branches : undefined;
};

/**
 * Model APIs want a plain `type: "object"` at the root (Anthropic's refuses `anyOf` there, OpenAI's wants the type).
 * A tool whose input is a union of object shapes (addDependentStep's two forms) is presented as one object holding
 * every property, required only where all forms require it; the node still validates the exact union, and its
 * refusal names what is missing.
 */
export const toModelSchema = (schema: unknown): JsonSchemaObject => {
  if (!isRecord(schema)) return { type: 'object', properties: {} };
  const { $schema: _dialect, ...rest } = schema;
  const branches = branchesOf(rest);
  if (rest.type === 'object' && !branches)
    return { ...rest, type: 'object', properties: isRecord(rest.properties) ? rest.properties : {} };
  const objects = (branches ?? []).filter(isRecord).filter((b) => b.type === 'object');
  const properties: Record<string, unknown> = {};
  for (const branch of objects)
    for (const [key, value] of Object.entries(isRecord(branch.properties) ? branch.properties : {}))
      properties[key] ??= value;
  const requiredSets = objects.map((b) => new Set(Array.isArray(b.required) ? (b.required as string[]) : []));
  const required = [...(requiredSets[0] ?? [])].filter((key) => requiredSets.every((set) => set.has(key)));
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
};

/** A union tool's description, followed by the fields each of its forms requires (which the flat schema loses). */
export const withArgumentForms = (description: string, schema: unknown): string => {
  const branches = branchesOf(schema);
  if (!branches || branches.length < 2) return description;
  const forms = branches
    .filter(isRecord)
    .map((b) => `{${(Array.isArray(b.required) ? (b.required as string[]) : []).join(', ')}}`)
    .join(' or ');
  return `${description} Accepted argument forms (required fields): ${forms}.`;
};
