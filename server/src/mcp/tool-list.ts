import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { DialectSchema, PlanHubError, TOOLS, isToolName, takesRequestId, toolCatalog } from '@planhub/shared';
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
 * An MCP tool's inputSchema must be an object schema at the top; a catalog input that is a union (anyOf of objects)
 * still is one. Mutating tools also take the call's request_id, which the socket protocol carries next to the args.
 */
const inputSchemaOf = (schema: Record<string, unknown>, withRequestId: boolean): Tool['inputSchema'] => {
  const properties = schema.properties as Record<string, object> | undefined;
  return {
    ...schema,
    type: 'object',
    ...(properties !== undefined && withRequestId ? { properties: { ...properties, request_id: REQUEST_ID } } : {}),
  };
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
        description: entry.description,
        inputSchema: inputSchemaOf(entry.input_schema as Record<string, unknown>, !known || takesRequestId(known)),
        annotations: { readOnlyHint: readOnly },
      };
    }),
  WAIT_FOR_EVENTS_TOOL,
];
