import { canonicalToolName } from '@planhub/shared';

/**
 * The call with its tool named as the catalog names it, so every step after it (the drain's read-only check, the
 * dashboards' write refusal, the metrics' label, dispatch) sees one name. Anything else passes as it came.
 */
export const withCanonicalTool = (raw: unknown): unknown => {
  const tool = (raw as { tool?: unknown } | null)?.tool;
  if (typeof tool !== 'string') return raw;
  const name = canonicalToolName(tool);
  return name === tool ? raw : { ...(raw as object), tool: name };
};
