import { toolCatalog } from '@planhub/shared';
import type { CatalogEntry } from './formats.ts';

export type CatalogDialect = '000' | '001' | '002' | '003' | '004' | 'planhub';

/**
 * The catalog built by the same function as the server's listTools, so a host can hand tools to its model before (or
 * without) a round trip; `listTools` gives the connected server's own.
 */
export const localCatalog = (dialect?: CatalogDialect): CatalogEntry[] => toolCatalog(dialect);
