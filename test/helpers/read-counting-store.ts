import type { Store } from '@planhub/server';

/** What a store was asked to read (and commit) so far. */
export interface StoreReads {
  /** Load calls (`load` and `loadWith`), and the documents, whole hashes and range reads they named. */
  load: number;
  keys: number;
  hashes: number;
  ranges: number;
  /** Every plan-step document key loaded, in order (`step:<plan>:<step>`). */
  stepKeys: string[];
  loadCollections: number;
  commit: number;
}

/** A real store whose reads and commits are counted; nothing else about it changes. */
export const readCounting = (store: Store): { store: Store; reads: StoreReads } => {
  const reads: StoreReads = { load: 0, keys: 0, hashes: 0, ranges: 0, stepKeys: [], loadCollections: 0, commit: 0 };
  const loaded = (keys: readonly string[], hashes = 0, ranges = 0) => {
    reads.load += 1;
    reads.keys += keys.length;
    reads.hashes += hashes;
    reads.ranges += ranges;
    reads.stepKeys.push(...keys.filter((k) => k.startsWith('step:')));
  };
  const wrapped: Store = {
    ...store,
    limits: store.limits,
    load: (ws, keys) => (loaded(keys), store.load(ws, keys)),
    loadWith: (ws, keys, alongside) => (
      loaded(keys, alongside.hashes?.length, alongside.ranges?.length),
      store.loadWith(ws, keys, alongside)
    ),
    loadCollections: (ws, read) => ((reads.loadCollections += 1), store.loadCollections(ws, read)),
    commit: (ws, commit) => ((reads.commit += 1), store.commit(ws, commit)),
  };
  return { store: wrapped, reads };
};
