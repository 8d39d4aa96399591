import { CATALOG_DIALECTS, isCatalogDialect } from '../llm/catalog-dialects.ts';
import { UsageError } from './exit-codes.ts';

/**
 * `--dialects`, read as the node reads `?dialects=` (comma-separated, blanks ignored, none meaning all), and checked
 * here: the node's refusal would only reach the host as a JSON-RPC error naming the URL parameter, while the bridge
 * kept running. Returns the value to pass on unchanged.
 */
export const dialectsOf = (value: string): string => {
  const unknown = value
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d !== '' && !isCatalogDialect(d));
  if (unknown.length > 0)
    throw new UsageError(
      `--dialects (or PLANHUB_DIALECTS): ${unknown.map((d) => `"${d}"`).join(', ')} ` +
        `${unknown.length === 1 ? 'is not a dialect' : 'are not dialects'}; ` +
        `give some of ${CATALOG_DIALECTS.join(', ')}, comma-separated (unset: all of them).`,
    );
  return value;
};
