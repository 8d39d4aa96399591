import { textBytes } from '../limits/text-bytes.ts';
import type { Workspace } from './memory-workspace.ts';
import type { StoreOp } from './store.ts';

/**
 * What the memory store's collections (sets, hashes, counters, sorted sets) count toward the node's stored-byte
 * bound: their text in UTF-8 bytes plus ENTRY_BYTES per key and per entry. A collection holds many short strings,
 * each with its own string header and hash-table slot, so counting the text alone would let a flood of one-letter
 * members hold many times its count on the heap; ENTRY_BYTES is that per-entry cost. Measured (Node 20): a short
 * member of a Set takes 56 bytes of heap, a short field of a Map 65, so a short entry counts 54, close to its cost.
 */
export const ENTRY_BYTES = 48;
/** A counter's number, or a sorted set member's score. */
const NUMBER_BYTES = 8;

export const keyBytes = (key: string) => textBytes(key) + ENTRY_BYTES;
export const memberBytes = (member: string) => textBytes(member) + ENTRY_BYTES;
export const fieldBytes = (field: string, value: string) => textBytes(field) + textBytes(value) + ENTRY_BYTES;
export const counterBytes = (key: string) => keyBytes(key) + NUMBER_BYTES;
export const scoredBytes = (member: string) => memberBytes(member) + NUMBER_BYTES;

/** The bytes a whole collection counts (what deleting it frees); 0 when it does not exist. */
export const collectionBytes = (w: Workspace, kind: 'set' | 'hash' | 'zset' | 'counter', key: string): number => {
  if (kind === 'counter') return w.counters.has(key) ? counterBytes(key) : 0;
  if (kind === 'set') {
    const set = w.sets.get(key);
    return set ? [...set].reduce((sum, m) => sum + memberBytes(m), keyBytes(key)) : 0;
  }
  if (kind === 'hash') {
    const hash = w.hashes.get(key);
    return hash ? [...hash].reduce((sum, [f, v]) => sum + fieldBytes(f, v), keyBytes(key)) : 0;
  }
  const zset = w.zsets.get(key);
  return zset ? zset.entries().reduce((sum, [m]) => sum + scoredBytes(m), keyBytes(key)) : 0;
};

/**
 * What one operation would add to the workspace's collection bytes (negative when it frees), judged on the state
 * before the commit: the bound's check runs before anything applies. Operations of one commit that touch the same
 * member are each judged alone, and a sorted set's re-added member counts as new (a sorted set cannot be asked
 * whether it holds one without a scan), so the estimate errs toward more, never letting a commit slip past the bound.
 */
export const opBytes = (w: Workspace, op: StoreOp): number => {
  if (op.op === 'sadd') {
    const set = w.sets.get(op.key);
    const added = new Set(op.members.filter((m) => !set?.has(m)));
    return [...added].reduce((sum, m) => sum + memberBytes(m), set ? 0 : keyBytes(op.key));
  }
  if (op.op === 'srem') {
    const set = w.sets.get(op.key);
    const gone = new Set(op.members.filter((m) => set?.has(m)));
    const emptied = set !== undefined && gone.size === set.size;
    return 0 - [...gone].reduce((sum, m) => sum + memberBytes(m), emptied ? keyBytes(op.key) : 0);
  }
  if (op.op === 'hset') {
    const hash = w.hashes.get(op.key);
    return Object.entries(op.fields).reduce(
      (sum, [f, v]) => {
        const old = hash?.get(f);
        if (old === undefined) return sum + fieldBytes(f, v);
        return op.onlyNew ? sum : sum + textBytes(v) - textBytes(old);
      },
      hash ? 0 : keyBytes(op.key),
    );
  }
  if (op.op === 'hdel') {
    const hash = w.hashes.get(op.key);
    const gone = [...new Set(op.fields)].filter((f) => hash?.has(f));
    const emptied = hash !== undefined && gone.length === hash.size;
    return 0 - gone.reduce((sum, f) => sum + fieldBytes(f, hash?.get(f) ?? ''), emptied ? keyBytes(op.key) : 0);
  }
  if (op.op === 'incr') return w.counters.has(op.key) ? 0 : counterBytes(op.key);
  if (op.op === 'zadd')
    return Object.keys(op.members).reduce((sum, m) => sum + scoredBytes(m), w.zsets.has(op.key) ? 0 : keyBytes(op.key));
  // zrem frees at most what it names; counted as freeing nothing, the estimate stays on the high side.
  if (op.op === 'zrem' || op.op === 'bump') return 0;
  return 0 - collectionBytes(w, op.kind, op.key);
};
