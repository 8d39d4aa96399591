import { toModelSchema, toStrictSchema, withArgumentForms, type JsonSchemaObject } from '@planhub/shared';

/** One tool as listTools serves it (and as the SDK builds it locally from the same zod schemas). */
export interface CatalogEntry {
  name: string;
  dialect: string;
  description: string;
  input_schema: unknown;
}

export type { JsonSchemaObject };

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

/** Kept under its earlier name for hosts that import it from the SDK. */
export const toParameters = toModelSchema;

export const toOpenAITool = (entry: CatalogEntry, options: CatalogOptions = {}): OpenAITool => ({
  type: 'function',
  function: {
    name: entry.name,
    description: withArgumentForms(entry.description, entry.input_schema),
    parameters: options.strict
      ? (toStrictSchema(toParameters(entry.input_schema)) as JsonSchemaObject)
      : toParameters(entry.input_schema),
    ...(options.strict ? { strict: true } : {}),
  },
});

export const toAnthropicTool = (entry: CatalogEntry): AnthropicTool => ({
  name: entry.name,
  description: withArgumentForms(entry.description, entry.input_schema),
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
