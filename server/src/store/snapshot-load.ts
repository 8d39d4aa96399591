import { readFollowed } from './follow-read.ts';
import type { Remembered } from './request-fingerprint.ts';
import type { AlongsideRead, LoadedAlongside, LoadedDoc, RangeRead, RangeSlice } from './store.ts';

/** What a store that reads in-process takes from one snapshot of a workspace (the memory and file stores). */
export interface SnapshotReads {
  docs(workspace: string, keys: readonly string[]): LoadedDoc[];
  hashes(workspace: string, keys: readonly string[]): Record<string, string>[];
  ranges(workspace: string, read: RangeRead): RangeSlice[];
  request(workspace: string, request: { agent_id: string; request_id: string }): Remembered | undefined;
}

/** `loadWith` from one snapshot: the documents, and what `alongside` asks for beside them (load.lua's rules). */
export const loadFromSnapshot = (
  read: SnapshotReads,
  workspace: string,
  keys: readonly string[],
  alongside: AlongsideRead,
): LoadedAlongside => {
  const hashKeys = alongside.hashes ?? [];
  const hashes = read.hashes(workspace, hashKeys);
  const { follow, request } = alongside;
  return {
    docs: read.docs(workspace, keys),
    hashes,
    ranges: (alongside.ranges ?? []).map((r) => read.ranges(workspace, r)),
    ...(request ? { request: read.request(workspace, request) } : {}),
    ...(follow
      ? { followed: readFollowed(follow, { keys: hashKeys, read: hashes }, (found) => read.docs(workspace, found)) }
      : {}),
  };
};

/** `read()` as a promise, rejected (not thrown) when it throws: a caller's bug found mid-read is a failed call. */
export const settled = <T>(read: () => T): Promise<T> => {
  try {
    return Promise.resolve(read());
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
};
