import { PlanHubError, retryAfterOf } from '@planhub/shared';

/** How long a refusal for the caller's rate asks to wait; undefined for any other failure. */
export const rateWait = (err: unknown): number | undefined =>
  err instanceof PlanHubError && err.code === 'RESOURCE_EXHAUSTED' && retryAfterOf(err.details) > 0
    ? retryAfterOf(err.details)
    : undefined;

/** The node's store lost its data: every later call answers the same, so retrying is pointless. */
export const isDataLoss = (err: unknown): err is PlanHubError =>
  err instanceof PlanHubError && err.code === 'DATA_LOSS';

/**
 * A rate refusal's words for a person. The server's own text is written for whoever codes an agent ("wait for
 * events instead of polling"), which a person looking at a page cannot act on.
 */
export const slowDownText = (waitMs: number): string =>
  `The server asked this page to slow down (too many reads at once); trying again in ${Math.max(1, Math.ceil(waitMs / 1000))} s…`;
