import { DialectSchema, PlanHubError } from '@planhub/shared';

export type CatalogDialect = '000' | '001' | '002' | '003' | '004' | 'planhub';

/** Every dialect a tool list can be asked for: the seeds' and PlanHub's own (the server's /mcp takes the same). */
export const CATALOG_DIALECTS: readonly CatalogDialect[] = [...DialectSchema.options, 'planhub'];

export const isCatalogDialect = (value: unknown): value is CatalogDialect =>
  (CATALOG_DIALECTS as readonly unknown[]).includes(value);

/**
 * `dialect`, checked: plain JS has no type to stop `tools('999')`, and an empty tool list would reach the model with
 * nothing said. Undefined means every dialect.
 */
export const checkedDialect = (dialect: unknown): CatalogDialect | undefined => {
  if (dialect === undefined || isCatalogDialect(dialect)) return dialect;
  throw new PlanHubError(
    'INVALID_ARGUMENT',
    `tools(): ${JSON.stringify(dialect) ?? typeof dialect} is not a dialect; ` +
      `give one of ${CATALOG_DIALECTS.join(', ')}, or none for every dialect's tools.`,
  );
};
