/** The largest part of a stream id Redis accepts (each part is an unsigned 64-bit integer). */
const PART_MAX = 18_446_744_073_709_551_615n;

const partsOf = (id: string): [bigint, bigint] => {
  const dash = id.indexOf('-');
  return [BigInt(id.slice(0, dash)), BigInt(id.slice(dash + 1))];
};

/*
 * Read bounds as Redis takes them, for the exclusive cursors clients send, or undefined when nothing can be read.
 * Redis refuses the bounds at the edges as errors ("invalid start ID" after the largest id, "invalid end ID" before
 * `0-0`, "Invalid stream ID" past 64 bits) where the memory and file stores answer an empty page: a client's cursor
 * must get the same empty page on every store, not an INTERNAL.
 */

/** The XRANGE start for the ids after `id`. */
export const startAfter = (id: string): string | undefined => {
  const [ms, seq] = partsOf(id);
  if (ms > PART_MAX || (ms === PART_MAX && seq >= PART_MAX)) return undefined;
  return seq > PART_MAX ? `(${ms}-${PART_MAX}` : `(${id}`;
};

/** The XREVRANGE end for the ids before `id`. */
export const endBefore = (id: string): string | undefined => {
  const [ms, seq] = partsOf(id);
  if (ms === 0n && seq === 0n) return undefined;
  if (ms > PART_MAX) return '+';
  // Every id of this millisecond is below a sequence past 64 bits: an inclusive bound at the largest one.
  return seq > PART_MAX ? `${ms}-${PART_MAX}` : `(${id}`;
};
