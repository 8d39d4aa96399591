import { expiredRange, expiresOfExpiry, requestKeyOfExpiry } from './file-keys.ts';
import { decodeRequest, type Tables } from './file-state.ts';
import { forgetInOrder } from './request-order.ts';

/** Index entries handled per transaction, so one sweep never holds the write lock long. */
const BATCH = 1000;

/**
 * Deletes remembered answers past their expiry (a lookup already ignores them; this frees the space), and their
 * entries in the agent's request order, reading the expiry index from its oldest entry. Each request is checked
 * again inside the transaction: the same request key may have been written afresh, with a later expiry, since its
 * old index entry was made.
 */
export const sweepRequests = async (
  tables: Pick<Tables, 'requests' | 'expiries' | 'requestOrder'>,
  write: (fn: () => void) => Promise<unknown>,
  now: () => number,
): Promise<void> => {
  const at = now();
  for (;;) {
    const expired = [...tables.expiries.getRange({ ...expiredRange(at), limit: BATCH })];
    if (expired.length === 0) return;
    try {
      await write(() => {
        for (const { key, value } of expired) {
          tables.expiries.remove(key as string);
          const requestKey = requestKeyOfExpiry(key as string);
          if ((decodeRequest(tables.requests.get(requestKey))?.expires ?? 0) <= at) tables.requests.remove(requestKey);
          forgetInOrder(tables.requestOrder, value, requestKey, expiresOfExpiry(key as string));
        }
      });
    } catch {
      return; // the next sweep tries again
    }
    if (expired.length < BATCH) return;
  }
};
