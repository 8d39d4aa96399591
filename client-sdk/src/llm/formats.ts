import { toStrictSchema } from '@planhub/shared';

/** One tool as listTools serves it (and as the SDK builds it locally from the same zod schemas). */
export interface CatalogEntry {
  name: string;
  dialect: string;
  description: string;
  input_schema: unknown;
}

export type JsonSchemaObject = { type: 'object'; properties: Record<string, unknown>; [key: string]: unknown };

/** OpenAI's function-calling tool (Chat Completions `tools[]`); `strict: true` for Structured Outputs. */
export interface OpenAITool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchemaObject; strict?: boolean };
}

export interface CatalogOptions {
  /**
   * OpenAI strict mode: every object closed, every property required (optional ones nullable), free-form values as
   * JSON strings. `execute()` turns such calls back (null → omitted, JSON strings decoded) before sending them.
   */
  strict?: boolean;
}

/** Anthropic's tool definition (Messages API `tools[]`). */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchemaObject;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Both APIs want a plain `type: "object"` at the root. A tool whose input is a union of object shapes
 * (addDependentStep's two forms) is presented as one object holding every property, required only where all forms
 * require it; the server still validates the exact union, and its error names what is missing.
 */
export const toParameters = (schema: unknown): JsonSchemaObject => {
  if (!isRecord(schema)) return { type: 'object', properties: {} };
  const { $schema: _dialect, ...rest } = schema;
  const branches = (rest.anyOf ?? rest.oneOf) as unknown[] | undefined;
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

const describe = (entry: CatalogEntry, schema: unknown): string => {
  const branches = isRecord(schema) ? (schema.anyOf ?? schema.oneOf) : undefined;
  if (!Array.isArray(branches) || branches.length < 2) return entry.description;
  const forms = branches
    .filter(isRecord)
    .map((b) => `{${(Array.isArray(b.required) ? (b.required as string[]) : []).join(', ')}}`)
    .join(' or ');
  return `${entry.description} Accepted argument forms (required fields): ${forms}.`;
};

export const toOpenAITool = (entry: CatalogEntry, options: CatalogOptions = {}): OpenAITool => ({
  type: 'function',
  function: {
    name: entry.name,
    description: describe(entry, entry.input_schema),
    parameters: options.strict
      ? (toStrictSchema(toParameters(entry.input_schema)) as JsonSchemaObject)
      : toParameters(entry.input_schema),
    ...(options.strict ? { strict: true } : {}),
  },
});

export const toAnthropicTool = (entry: CatalogEntry): AnthropicTool => ({
  name: entry.name,
  description: describe(entry, entry.input_schema),
  input_schema: toParameters(entry.input_schema),
});

export interface ToolCatalog {
  /** Tool names, in catalog order. */
  names: string[];
  openai: OpenAITool[];
  anthropic: AnthropicTool[];
}

export const toToolCatalog = (entries: readonly CatalogEntry[], options: CatalogOptions = {}): ToolCatalog => ({
  names: entries.map((e) => e.name),
  openai: entries.map((e) => toOpenAITool(e, options)),
  anthropic: entries.map(toAnthropicTool),
});
