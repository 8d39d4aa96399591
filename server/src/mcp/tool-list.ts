import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  DialectSchema,
  PlanHubError,
  TOOLS,
  isToolName,
  takesRequestId,
  toModelSchema,
  toolCatalog,
  withArgumentForms,
} from '@planhub/shared';
import { WAIT_FOR_EVENTS_TOOL } from './wait-for-events-tool.ts';

/** What `?dialects=` may name: the seed dialects and PlanHub's own tools. */
export const MCP_DIALECTS: readonly string[] = [...DialectSchema.options, 'planhub'];

/** `?dialects=000,004` → those dialects; absent or empty → all of them. */
export const parseDialects = (raw: string | null): ReadonlySet<string> => {
  const asked = (raw ?? '')
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d !== '');
  if (asked.length === 0) return new Set(MCP_DIALECTS);
  const unknown = asked.filter((d) => !MCP_DIALECTS.includes(d));
  if (unknown.length > 0)
    throw new PlanHubError(
      'INVALID_ARGUMENT',
      `Unknown dialect ${unknown.map((d) => `"${d.slice(0, 16)}"`).join(', ')} in ?dialects=. ` +
        `Valid: ${MCP_DIALECTS.join(', ')} (comma-separated; default all).`,
    );
  return new Set(asked);
};

const REQUEST_ID = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  description:
    'Optional idempotency key: a retry with the same request_id returns the first answer instead of acting twice.',
};

/**
 * MCP hosts hand a tool's inputSchema to their model's API as it is, and those APIs want a plain object at the root:
 * Anthropic's refuses a root `anyOf`, which addDependentStep's two forms made until round 30. So the schema is the
 * flat model form (the forms' required fields go into the description), and mutating tools also take the call's
 * request_id, which the socket protocol carries next to the args.
 */
const inputSchemaOf = (schema: unknown, withRequestId: boolean): Tool['inputSchema'] => {
  const flat = toModelSchema(schema);
  // Every property of a JSON Schema generated from zod is itself a schema object.
  const properties = flat.properties as Record<string, object>;
  return { ...flat, properties: withRequestId ? { ...properties, request_id: REQUEST_ID } : properties };
};

/** The session's tools: the asked dialects of the one catalog, plus waitForEvents. */
export const mcpTools = (dialects: ReadonlySet<string>): Tool[] => [
  ...toolCatalog()
    .filter((entry) => dialects.has(entry.dialect))
    .map((entry): Tool => {
      const known = isToolName(entry.name) ? TOOLS[entry.name] : undefined;
      const readOnly = known?.readOnly === true;
      return {
        name: entry.name,
        description: withArgumentForms(entry.description, entry.input_schema),
        inputSchema: inputSchemaOf(entry.input_schema, !known || takesRequestId(known)),
        annotations: { readOnlyHint: readOnly },
      };
    }),
  WAIT_FOR_EVENTS_TOOL,
];
