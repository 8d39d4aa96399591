import { z } from 'zod';
import type { ToolResult } from './catalog.ts';
import { TOOLS, TOOL_NAMES } from './catalog.ts';

export { fromStrictArgs, toStrictSchema } from './strict-schema.ts';
export { toModelSchema, withArgumentForms, type JsonSchemaObject } from './model-schema.ts';

export type CatalogEntries = ToolResult<'listTools'>;

let built: CatalogEntries | undefined;

/**
 * Every tool's name, dialect, description and input JSON Schema: what an LLM host hands its model. The server's
 * listTools and the SDK's offline catalog both come from here, so they cannot drift apart. Built on first use (the
 * JSON Schema conversion is not free, and the dashboard bundle never needs it).
 */
export const toolCatalog = (dialect?: string): CatalogEntries => {
  built ??= TOOL_NAMES.map((name) => ({
    name,
    dialect: TOOLS[name].dialect,
    description: TOOLS[name].description,
    // A union input (addDependentStep's two forms) is still an object: its root says so, as a schema reader expects.
    input_schema: { ...z.toJSONSchema(TOOLS[name].input, { io: 'input', unrepresentable: 'any' }), type: 'object' },
  }));
  return dialect === undefined ? [...built] : built.filter((t) => t.dialect === dialect);
};
