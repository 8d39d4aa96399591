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
    const expired = [...tables.expiries.getRange({ ...expiredRange(at), limit: BATCH })].map((e) => e.key as string);
    if (expired.length === 0) return;
    try {
      await write(() => {
        for (const key of expired) {
          tables.expiries.remove(key);
          const requestKey = requestKeyOfExpiry(key);
          if ((decodeRequest(tables.requests.get(requestKey))?.expires ?? 0) <= at) tables.requests.remove(requestKey);
        }
      });
    } catch {
      return; // the next sweep tries again
    }
    if (expired.length < BATCH) return;
  }
};
