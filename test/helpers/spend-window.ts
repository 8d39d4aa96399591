import type { PlanHubClient } from '@planhub/client-sdk';
import { PlanHubError } from '@planhub/shared';
import { expect } from 'vitest';

/** Calls `getWorkspace` as `client` until one is refused; returns that refusal. */
const spendOnce = async (client: PlanHubClient): Promise<PlanHubError> => {
  for (let i = 0; i < 100; i++) {
    const refusal = await client.getWorkspace({}).then(
      () => undefined,
      (err: unknown) => err,
    );
    if (refusal !== undefined) {
      expect(refusal).toBeInstanceOf(PlanHubError);
      return refusal as PlanHubError;
    }
  }
  throw new Error('no call was refused');
};

/**
 * Spends the call window of `client`'s agent (a client made with no retries) with at least `leftMs` of it left: a
 * window about to end is waited out and the next one spent, so the agent's next calls from any connection are
 * refused however the test's steps fall against the window. The window must be longer than `leftMs`.
 */
export const spendWindow = async (client: PlanHubClient, leftMs = 4000): Promise<PlanHubError> => {
  for (;;) {
    const refusal = await spendOnce(client);
    expect(refusal.code).toBe('RESOURCE_EXHAUSTED');
    const left = (refusal.details as { retry_after_ms?: number } | undefined)?.retry_after_ms;
    expect(left).toBeTypeOf('number');
    if (left! >= leftMs) return refusal;
    await new Promise((resolve) => setTimeout(resolve, left! + 50));
  }
};
