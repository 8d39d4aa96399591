import { createHash } from 'node:crypto';

/**
 * Keys of the file store. Every entry of a workspace starts with `<workspace>` and the separator, so one workspace's
 * entries of a kind are one contiguous range (the event log is read by range). LMDB keys are limited to 511 bytes: a
 * longer key (long agent or request ids) is replaced by its SHA-256, which is as unique and keeps the workspace
 * prefix.
 *
 * The separator is U+001F, not NUL. The engine's key encoding (ordered-binary) writes a string of fewer than 64
 * characters with bytes 0 to 4 escaped, and a longer one as plain UTF-8, which it reads back split at each NUL (as
 * an array). With NUL, a range bound shorter than 64 characters did not match keys of 64 or more, and the event log
 * of a workspace named with 31 to 62 characters (a UUID, say) read as empty and was never trimmed. U+001F is written
 * the same way in both, and sorts below every character a name may hold. A store written with NUL is upgraded when
 * it opens (key-format.ts).
 */
export const SEP = '\u001f';
/** The character after SEP: the exclusive end of a range of keys that start with a prefix and SEP. */
const AFTER_SEP = '\u0020';
const MAX_KEY_BYTES = 480;

export const entryKey = (workspace: string, key: string): string => {
  const full = `${workspace}${SEP}${key}`;
  if (Buffer.byteLength(full, 'utf8') <= MAX_KEY_BYTES) return full;
  // Hashed as it was with the old separator, so a store upgraded from it finds these keys again.
  return `${workspace}${SEP}#${createHash('sha256').update(key.replaceAll(SEP, '\u0000')).digest('base64url')}`;
};

export const requestEntryKey = (workspace: string, agentId: string, requestId: string): string =>
  entryKey(workspace, `${agentId}${SEP}${requestId}`);

/** The bounds of every key that starts with `prefix` and SEP. */
export const prefixRange = (prefix: string) => ({ start: `${prefix}${SEP}`, end: `${prefix}${AFTER_SEP}` });

/** Event ids are `<ms>-<seq>`; fixed-width digits make the keys sort as the ids do. */
const WIDTH = 16;
const MAX_PART = 10 ** WIDTH - 1;
const part = (n: number): string => String(Math.min(MAX_PART, Math.max(0, Math.floor(n)))).padStart(WIDTH, '0');

export const eventKey = (workspace: string, ms: number, seq: number): string =>
  `${workspace}${SEP}${part(ms)}${part(seq)}`;

/** `<ms>-<seq>` as numbers, read exactly as the shared comparison reads them. */
export const parseEventId = (id: string): [number, number] => {
  const dash = id.indexOf('-');
  return [Number(id.slice(0, dash)), Number(id.slice(dash + 1))];
};

/** A remembered answer's place in the expiry index: the index sorts by expiry, then by the request's key. */
export const expiryKey = (expires: number, requestKey: string): string => `${part(expires)}${SEP}${requestKey}`;

/** The index's range of entries expired at `now` (the end is exclusive: `now + 1` in fixed width). */
export const expiredRange = (now: number) => ({ end: part(now + 1) });

export const requestKeyOfExpiry = (key: string): string => key.slice(key.indexOf(SEP) + 1);

export const expiresOfExpiry = (key: string): number => Number(key.slice(0, key.indexOf(SEP)));

/**
 * An agent's remembered requests in the order they were answered (the request log's bound): `counts` holds the
 * next sequence number and how many are listed, `entry(seq)` one request, and `range` all of them, oldest first.
 */
export const requestOrderKeys = (workspace: string, agentId: string) => {
  const base = entryKey(workspace, agentId);
  return { counts: base, entry: (seq: number) => `${base}${SEP}${part(seq)}`, range: prefixRange(base) };
};

/** The `counts` key of the agent an order entry belongs to: the entry's key without its sequence number. */
export const orderCountsOfEntry = (entry: string): string => entry.slice(0, entry.lastIndexOf(SEP));
