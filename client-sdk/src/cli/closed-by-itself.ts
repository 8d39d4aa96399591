import type { PlanHubClient } from '../connect.ts';

/**
 * Why a client that had connected closed itself: after the first connection it does so only when a node refuses
 * its credentials for good on a reconnect (the token expired or was revoked), so the command ends as refused (exit 1).
 */
export class ClosedByItselfError extends Error {}

/**
 * Rejects when `client` closes itself, with the node's own error when the SDK passes one on, else with its reason.
 * The command's own close() at its end rejects it too, when nobody listens any more.
 */
export const closedByItself = (client: PlanHubClient): Promise<never> => {
  const closed = new Promise<never>((_resolve, reject) => {
    const off = client.on('state', (state, info) => {
      if (state !== 'closed') return;
      off();
      reject(
        info.error ?? new ClosedByItselfError(`the node refused to reconnect: ${info.reason ?? 'no reason given'}`),
      );
    });
  });
  // Handled here, so the rejection that comes with the command's own close() is never reported as unhandled.
  closed.catch(() => undefined);
  return closed;
};
