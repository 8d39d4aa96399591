import type { EventEnvelope } from '@planhub/shared';
import { readBytesOf } from '../store/read-bytes.ts';
import type { Store } from '../store/store.ts';

const PAGE = 500;
/** A scan's first read: a store parses a whole page before the scan sees its sizes (32 entries of 512 KiB: 16 MiB). */
const FIRST_PAGE = 32;

/**
 * The next read's size: small at first and doubling up to a page, so a scan that ends early reads little past its
 * end; and never more entries than fit in what is left of SCAN_BYTES at the sizes seen so far, so a log of large
 * entries is not parsed a page at a time past the bound.
 */
const nextPage = (previous: number, scanned: number, bytes: number, wanted: number): number => {
  const fit = bytes > 0 ? Math.ceil(((SCAN_BYTES - bytes) * scanned) / bytes) : PAGE;
  return Math.max(1, Math.min(previous === 0 ? FIRST_PAGE : 2 * previous, PAGE, wanted, fit));
};

/**
 * How many log entries one call may look at. A filter that matches nothing would otherwise walk the whole retained
 * log (10,000 events by default) on every call; with a budget it costs at most this, and the answer carries a cursor
 * to continue from, so a caller that wants to look further asks again.
 */
export const SCAN_BUDGET = 2_000;

const never = () => false;

/**
 * Log entries looked at per unit of the caller's call budget (a call costs 1 unit): a scan of the whole
 * SCAN_BUDGET costs 20 more, so ten such calls weigh like two hundred cheap ones.
 */
export const SCAN_ENTRIES_PER_UNIT = 100;

const scanCost = (scanned: number): number => Math.floor(scanned / SCAN_ENTRIES_PER_UNIT);

/**
 * Text a scan may make the store parse (readBytesOf) before it answers its cursor, and how much of it is one unit
 * of the caller's budget. Entries alone did not bound a scan: 984 entries of 60 KiB on Redis took 165 ms per call for
 * 10 units, and another workspace's p99 rose to 140–154 ms.
 */
export const SCAN_BYTES = 8 * 1024 * 1024;
export const READ_BYTES_PER_UNIT = 64 * 1024;

/** What a scan's parsing costs the caller, beyond the entries it looked at. */
const readCost = (bytes: number): number => Math.floor(bytes / READ_BYTES_PER_UNIT);

/** What a scan costs the caller in all: the entries it looked at and the text the store parsed for them. */
export const scanWork = (scan: { scanned: number; bytes: number }): number =>
  scanCost(scan.scanned) + readCost(scan.bytes);

export interface Scan {
  /** Matching events, oldest first. */
  events: EventEnvelope[];
  /** Forward: where the next forward scan continues (past everything looked at, never past an event not returned).
   * Backward: the newest event looked at. */
  cursor: string | undefined;
  /** Log entries looked at. */
  scanned: number;
  /** Text the store parsed for them (store/read-bytes.ts): 0 on a store that keeps objects. */
  bytes: number;
  /** Backward only: continue with before_event set to it to look at older events; undefined when the scan reached
   * the oldest retained event. */
  nextBefore?: string | undefined;
  /** Whether the scan reached the end of the log in its direction (forward: the newest event). */
  complete: boolean;
}

/**
 * Matching events after `after`, oldest first, at most `limit`; looks at no more than `budget` events, and stops
 * early once `spent()` says the matching has used its share (a text search's payload bytes) or SCAN_BYTES of entries
 * were parsed.
 */
export const scanForward = async (
  store: Store,
  workspace: string,
  after: string,
  limit: number,
  match: (e: EventEnvelope) => boolean,
  budget: number,
  spent: () => boolean = never,
): Promise<Scan> => {
  const events: EventEnvelope[] = [];
  let cursor = after;
  let scanned = 0;
  let bytes = 0;
  let count = 0;
  while (scanned < budget) {
    count = nextPage(count, scanned, bytes, budget - scanned);
    const page = await store.readEvents(workspace, { after: cursor, count });
    for (const event of page) {
      cursor = event.event_id;
      scanned++;
      bytes += readBytesOf(event);
      if (match(event)) events.push(event);
      if (events.length === limit || spent() || bytes >= SCAN_BYTES)
        return { events, cursor, scanned, bytes, complete: false };
    }
    if (page.length < count) return { events, cursor, scanned, bytes, complete: true };
  }
  return { events, cursor, scanned, bytes, complete: false };
};

/**
 * The newest `limit` matching events older than `before` (or the newest of the log), oldest first, looking at no
 * more than `budget` events (and none more once `spent()` or SCAN_BYTES parsed, as scanForward). Reads are sized by
 * nextPage: the first is small (a loose filter costs one short read), later ones grow to a page.
 */
export const scanBackward = async (
  store: Store,
  workspace: string,
  before: string | undefined,
  limit: number,
  match: (e: EventEnvelope) => boolean,
  budget: number,
  spent: () => boolean = never,
): Promise<Scan> => {
  const found: EventEnvelope[] = [];
  let newest: string | undefined;
  let oldest = before;
  let scanned = 0;
  let bytes = 0;
  let count = 0;
  while (scanned < budget) {
    count = nextPage(count, scanned, bytes, budget - scanned);
    const page = await store.readEvents(workspace, oldest === undefined ? { count } : { before: oldest, count });
    newest ??= page.at(-1)?.event_id;
    for (let i = page.length - 1; i >= 0; i--) {
      const event = page[i]!;
      oldest = event.event_id;
      scanned++;
      bytes += readBytesOf(event);
      if (match(event)) found.push(event);
      if (found.length === limit || spent() || bytes >= SCAN_BYTES)
        return { events: found.reverse(), cursor: newest, scanned, bytes, nextBefore: oldest, complete: false };
    }
    if (page.length < count) return { events: found.reverse(), cursor: newest, scanned, bytes, complete: true };
  }
  return { events: found.reverse(), cursor: newest, scanned, bytes, nextBefore: oldest, complete: false };
};

/** The id just before `id` in log order: replaying "after" it includes `id` itself. */
export const precedingId = (id: string): string => {
  const dash = id.indexOf('-');
  const ms = Number(id.slice(0, dash));
  const seq = Number(id.slice(dash + 1));
  if (seq > 0) return `${ms}-${seq - 1}`;
  return ms > 0 ? `${ms - 1}-${Number.MAX_SAFE_INTEGER}` : '0-0';
};

/**
 * Where a subscription's default history replay starts: just before the oldest event matching it among the newest
 * `budget` log entries, or the log's newest entry when none matches (so an event committed while the stream starts
 * is still replayed, never skipped). A replay from there reads at most about `budget` entries (plus what is committed
 * meanwhile), so subscribing costs the same bounded scan as one getTaskEvents call, whatever the log's length.
 */
export const historyStart = async (
  store: Store,
  workspace: string,
  match: (e: EventEnvelope) => boolean,
  budget: number,
): Promise<{ after: string; scanned: number; bytes: number }> => {
  const scan = await scanBackward(store, workspace, undefined, budget, match, budget);
  const oldest = scan.events[0];
  const after = oldest ? precedingId(oldest.event_id) : (scan.cursor ?? '0-0');
  return { after, scanned: scan.scanned, bytes: scan.bytes };
};
