import { orderCountsOfEntry, requestOrderKeys } from './file-keys.ts';
import { decodeRequest, type Table, type Tables } from './file-state.ts';

interface OrderCounts {
  next: number;
  listed: number;
}

type OrderTables = Pick<Tables, 'requests' | 'requestOrder'>;

const readCounts = (table: Table, key: string): OrderCounts | undefined => {
  const stored = table.get(key);
  return stored === undefined ? undefined : (JSON.parse(stored) as OrderCounts);
};

/** The `[request key, expires]` an order entry lists. */
const listed = (value: string) => JSON.parse(value) as [string, number];

/**
 * The file store's request log bound, as the memory store's (request-index.ts) and Redis' (`reqs:<agent>`): records
 * that `agentId` had `requestKey` answered (expiring at `expires`), then forgets, oldest first, the answers that
 * expired and those past `keep`, so a flood of distinct request_ids cannot grow the file within the TTL. Runs inside
 * the commit's write transaction. Answers the new entry's key, for the expiry index to name it.
 */
export const rememberInOrder = (
  tables: OrderTables,
  workspace: string,
  request: { agentId: string; requestKey: string; expires: number; keep: number | undefined },
  now: number,
): string => {
  const keys = requestOrderKeys(workspace, request.agentId);
  const counts = readCounts(tables.requestOrder, keys.counts) ?? { next: 0, listed: 0 };
  const entry = keys.entry(counts.next);
  tables.requestOrder.put(entry, JSON.stringify([request.requestKey, request.expires]));
  counts.next += 1;
  counts.listed += 1;
  const keep = request.keep ?? Number.POSITIVE_INFINITY;
  // Read lazily and usually only the oldest entry: a commit must not decode the whole list (up to `keep`) to drop
  // none. Removed only after the scan, so the engine's cursor never walks a range it is changing.
  const dropped: Array<{ key: string; requestKey: string; expires: number }> = [];
  for (const { key, value } of tables.requestOrder.getRange(keys.range)) {
    const [requestKey, expires] = listed(value);
    if (expires > now && counts.listed - dropped.length <= keep) break;
    dropped.push({ key: key as string, requestKey, expires });
  }
  for (const { key, requestKey, expires } of dropped) {
    tables.requestOrder.remove(key);
    // Only the answer this entry listed: the same request_id answered again since has an entry of its own.
    if (decodeRequest(tables.requests.get(requestKey))?.expires === expires) tables.requests.remove(requestKey);
  }
  counts.listed -= dropped.length;
  tables.requestOrder.put(keys.counts, JSON.stringify(counts));
  return entry;
};

/**
 * The expiry sweep's part: forgets the order entry `entry` if it still lists the answer `requestKey` that expired at
 * `expires` (a commit may have trimmed it already), so an agent that stops committing leaves nothing behind; its
 * counts go with its last entry. `entry` comes from the expiry index, whose older entries hold '' or the request key
 * there: those name no order entry and change nothing.
 */
export const forgetInOrder = (table: Table, entry: string, requestKey: string, expires: number): void => {
  const value = entry === '' ? undefined : table.get(entry);
  if (value === undefined) return;
  const [listedKey, listedExpires] = listed(value);
  if (listedKey !== requestKey || listedExpires !== expires) return;
  table.remove(entry);
  const countsKey = orderCountsOfEntry(entry);
  const counts = readCounts(table, countsKey);
  if (counts === undefined) return;
  counts.listed -= 1;
  // No entry left: numbering starts again at 0 without meeting an old one.
  if (counts.listed <= 0) table.remove(countsKey);
  else table.put(countsKey, JSON.stringify(counts));
};
