import type { ToolName } from '@planhub/shared';
import { TOOLS, TOOL_NAMES } from '@planhub/shared';
import { z } from 'zod';
import type { CatalogEntry } from './formats.ts';

export type CatalogDialect = '000' | '001' | '002' | '003' | '004' | 'planhub';

let cache: CatalogEntry[] | undefined;

/**
 * The catalog built from the same zod schemas and with the same options as the server's listTools, so a host can
 * hand tools to its model before (or without) a round trip; `listTools` gives the connected server's own.
 */
export const localCatalog = (dialect?: CatalogDialect): CatalogEntry[] => {
  cache ??= TOOL_NAMES.map((name: ToolName) => ({
    name,
    dialect: TOOLS[name].dialect,
    description: TOOLS[name].description,
    input_schema: z.toJSONSchema(TOOLS[name].input, { io: 'input', unrepresentable: 'any' }),
  }));
  return dialect === undefined ? [...cache] : cache.filter((t) => t.dialect === dialect);
};
