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
  /** Every document key loaded, in order. */
  loadedKeys: string[];
  /** Every whole hash read (with documents or on its own), in order. */
  hashKeys: string[];
  loadCollections: number;
  commit: number;
  /** The counted methods called (load, loadWith, loadCollections, requestAnswer, commit), in order. */
  calls: string[];
}

/** A real store whose reads and commits are counted; nothing else about it changes. */
export const readCounting = (store: Store): { store: Store; reads: StoreReads } => {
  const reads: StoreReads = {
    load: 0,
    keys: 0,
    hashes: 0,
    ranges: 0,
    stepKeys: [],
    loadedKeys: [],
    hashKeys: [],
    loadCollections: 0,
    commit: 0,
    calls: [],
  };
  const loaded = (keys: readonly string[], hashes = 0, ranges = 0) => {
    reads.load += 1;
    reads.keys += keys.length;
    reads.hashes += hashes;
    reads.ranges += ranges;
    reads.stepKeys.push(...keys.filter((k) => k.startsWith('step:')));
    reads.loadedKeys.push(...keys);
  };
  const wrapped: Store = {
    ...store,
    limits: store.limits,
    load: (ws, keys) => (reads.calls.push('load'), loaded(keys), store.load(ws, keys)),
    loadWith: (ws, keys, alongside) => (
      reads.calls.push('loadWith'),
      loaded(keys, alongside.hashes?.length, alongside.ranges?.length),
      reads.hashKeys.push(...(alongside.hashes ?? [])),
      store.loadWith(ws, keys, alongside)
    ),
    loadCollections: (ws, read) => (
      reads.calls.push('loadCollections'),
      (reads.loadCollections += 1),
      reads.hashKeys.push(...(read.hashes ?? [])),
      store.loadCollections(ws, read)
    ),
    requestAnswer: (ws, agentId, requestId) => (
      reads.calls.push('requestAnswer'),
      store.requestAnswer(ws, agentId, requestId)
    ),
    commit: (ws, commit) => (reads.calls.push('commit'), (reads.commit += 1), store.commit(ws, commit)),
  };
  return { store: wrapped, reads };
};
