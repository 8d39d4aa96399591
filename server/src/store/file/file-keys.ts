import { createHash } from 'node:crypto';

/**
 * Keys of the file store. Every entry of a workspace starts with `<workspace>\0`, so one workspace's entries of a
 * kind are one contiguous range (the event log is read by range). LMDB keys are limited to 511 bytes: a longer key
 * (long agent or request ids) is replaced by its SHA-256, which is as unique and keeps the workspace prefix.
 */
const SEP = '\u0000';
const MAX_KEY_BYTES = 480;

export const entryKey = (workspace: string, key: string): string => {
  const full = `${workspace}${SEP}${key}`;
  if (Buffer.byteLength(full, 'utf8') <= MAX_KEY_BYTES) return full;
  return `${workspace}${SEP}#${createHash('sha256').update(key).digest('base64url')}`;
};

export const requestEntryKey = (workspace: string, agentId: string, requestId: string): string =>
  entryKey(workspace, `${agentId}${SEP}${requestId}`);

/** The bounds of one workspace's range: from `<workspace>\0` (inclusive) to `<workspace>\1` (exclusive). */
export const workspaceRange = (workspace: string) => ({ start: `${workspace}${SEP}`, end: `${workspace}\u0001` });

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
