import { decodeRequest, type Table } from './file-state.ts';

/** Expired entries deleted per sweep, so one sweep never holds the write transaction long. */
const BATCH = 1000;

/**
 * Deletes remembered answers past their expiry (a lookup already ignores them; this only frees the space). The
 * scan reads committed state; each entry is checked again inside the transaction, since the same request key may
 * have been written afresh in between.
 */
export const sweepRequests = async (
  requests: Table,
  write: (fn: () => void) => Promise<unknown>,
  now: () => number,
): Promise<void> => {
  const at = now();
  const expired: string[] = [];
  for (const { key, value } of requests.getRange({})) {
    if ((decodeRequest(value)?.expires ?? 0) <= at) expired.push(key as string);
    if (expired.length >= BATCH) break;
  }
  if (expired.length === 0) return;
  await write(() => {
    for (const key of expired) if ((decodeRequest(requests.get(key))?.expires ?? 0) <= at) requests.remove(key);
  }).catch(() => undefined);
};
