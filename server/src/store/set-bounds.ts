import type { BoundRefusal, StoreOp } from './store.ts';

/** A set as stored before the commit (the stores keep sets differently). */
export type StoredSet = (key: string) => ReadonlySet<string> | undefined;

/**
 * The refusal for the first `sadd` of `ops` with a `max` that would take its set past it; undefined when none would.
 * Each is measured against its set as stored before the commit, counting each new member once; one that adds no
 * member is never refused. The memory and file stores share it; the Redis store's commit script applies the same
 * rule.
 */
export const boundRefusal = (ops: readonly StoreOp[], stored: StoredSet): BoundRefusal | undefined => {
  for (const op of ops) {
    if (op.op !== 'sadd' || op.max === undefined) continue;
    const set = stored(op.key);
    const size = set?.size ?? 0;
    const added = new Set(op.members.filter((m) => !set?.has(m))).size;
    if (added > 0 && size + added > op.max)
      return { ok: false, reason: 'bound', key: op.key, size, added, max: op.max };
  }
  return undefined;
};
