import { expiredRange, requestKeyOfExpiry } from './file-keys.ts';
import { decodeRequest, type Tables } from './file-state.ts';

/** Index entries handled per transaction, so one sweep never holds the write lock long. */
const BATCH = 1000;

/**
 * Deletes remembered answers past their expiry (a lookup already ignores them; this frees the space), reading the
 * expiry index from its oldest entry. Each request is checked again inside the transaction: the same request key
 * may have been written afresh, with a later expiry, since its old index entry was made.
 */
export const sweepRequests = async (
  tables: Pick<Tables, 'requests' | 'expiries'>,
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
          // The entry names its request; one written before round 18 is empty, and its key names it.
          const requestKey = value !== '' ? value : requestKeyOfExpiry(key as string);
          if ((decodeRequest(tables.requests.get(requestKey))?.expires ?? 0) <= at) tables.requests.remove(requestKey);
        }
      });
    } catch {
      return; // the next sweep tries again
    }
    if (expired.length < BATCH) return;
  }
};
