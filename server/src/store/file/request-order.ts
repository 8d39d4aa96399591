import { requestOrderKeys } from './file-keys.ts';
import { decodeRequest, type Tables } from './file-state.ts';

interface OrderCounts {
  next: number;
  listed: number;
}

/**
 * The file store's request log bound, as the memory store's (request-index.ts) and Redis' (`reqs:<agent>`): records
 * that `agentId` had `requestKey` answered (expiring at `expires`), then forgets, oldest first, the answers that
 * expired and those past `keep`, so a flood of distinct request_ids cannot grow the file within the TTL. Runs inside
 * the commit's write transaction.
 */
export const rememberInOrder = (
  tables: Pick<Tables, 'requests' | 'requestOrder'>,
  workspace: string,
  request: { agentId: string; requestKey: string; expires: number; keep: number | undefined },
  now: number,
): void => {
  const keys = requestOrderKeys(workspace, request.agentId);
  const stored = tables.requestOrder.get(keys.counts);
  const counts: OrderCounts = stored === undefined ? { next: 0, listed: 0 } : (JSON.parse(stored) as OrderCounts);
  tables.requestOrder.put(keys.entry(counts.next), JSON.stringify([request.requestKey, request.expires]));
  counts.next += 1;
  counts.listed += 1;
  const keep = request.keep ?? Number.POSITIVE_INFINITY;
  for (const { key, value } of [...tables.requestOrder.getRange({ ...keys.range, limit: counts.listed })]) {
    const [requestKey, expires] = JSON.parse(value) as [string, number];
    if (expires > now && counts.listed <= keep) break;
    tables.requestOrder.remove(key as string);
    counts.listed -= 1;
    // Only the answer this entry listed: the same request_id answered again since has an entry of its own.
    if (decodeRequest(tables.requests.get(requestKey))?.expires === expires) tables.requests.remove(requestKey);
  }
  tables.requestOrder.put(keys.counts, JSON.stringify(counts));
};
