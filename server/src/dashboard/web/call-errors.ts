import { PlanHubError, retryAfterOf } from '@planhub/shared';

/** How long a refusal for the caller's rate asks to wait; undefined for any other failure. */
export const rateWait = (err: unknown): number | undefined =>
  err instanceof PlanHubError && err.code === 'RESOURCE_EXHAUSTED' && retryAfterOf(err.details) > 0
    ? retryAfterOf(err.details)
    : undefined;

/** The plan (or other record) asked for is not kept: never made, or removed by retention. */
export const isNotFound = (err: unknown): boolean => err instanceof PlanHubError && err.code === 'NOT_FOUND';

/**
 * A plan page's words for a plan the server does not keep. The server's refusal is written for an agent ("call
 * getTaskEvents with plan_id …"); a person is told what happened, and shown what the log still holds of it.
 */
export const REMOVED_PLAN_TEXT =
  "This plan is not kept any more: the server removes an agent's oldest finished plans past its retention limit " +
  '(or the plan never existed). What the event log still holds of it is below.';

/** The node's store lost its data: every later call answers the same, so retrying is pointless. */
export const isDataLoss = (err: unknown): err is PlanHubError =>
  err instanceof PlanHubError && err.code === 'DATA_LOSS';

/**
 * A rate refusal's words for a person. The server's own text is written for whoever codes an agent ("wait for
 * events instead of polling"), which a person looking at a page cannot act on.
 */
export const slowDownText = (waitMs: number): string =>
  `The server asked this page to slow down (too many reads at once); trying again in ${Math.max(1, Math.ceil(waitMs / 1000))} s…`;
