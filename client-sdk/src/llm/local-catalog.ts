import { toolCatalog } from '@planhub/shared';
import { checkedDialect, type CatalogDialect } from './catalog-dialects.ts';
import type { CatalogEntry } from './formats.ts';

export type { CatalogDialect };

/**
 * The catalog built by the same function as the server's listTools, so a host can hand tools to its model before (or
 * without) a round trip; `listTools` gives the connected server's own. An unknown dialect throws INVALID_ARGUMENT
 * naming the valid ones.
 */
export const localCatalog = (dialect?: CatalogDialect): CatalogEntry[] => toolCatalog(checkedDialect(dialect));
