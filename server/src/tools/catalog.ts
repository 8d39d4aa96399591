import type { ToolResult } from '@planhub/shared';
import { TOOLS, TOOL_NAMES } from '@planhub/shared';
import { z } from 'zod';

/** listTools' answer, generated once from the zod schemas (what an LLM host exposes to its model). */
export const buildCatalog = (): ((dialect?: string) => ToolResult<'listTools'>) => {
  const all = TOOL_NAMES.map((name) => ({
    name,
    dialect: TOOLS[name].dialect,
    description: TOOLS[name].description,
    input_schema: z.toJSONSchema(TOOLS[name].input, { io: 'input', unrepresentable: 'any' }),
  }));
  return (dialect) => (dialect === undefined ? all : all.filter((t) => t.dialect === dialect));
};
