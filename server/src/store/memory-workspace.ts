import type { EventLog } from './memory-event-log.ts';
import type { createRequestIndex } from './request-index.ts';
import type { DocRead, FanIn } from './store.ts';
import type { SortedMembers } from './sorted-members.ts';
import { textBytes } from '../limits/text-bytes.ts';

/** One workspace of the memory store, and the checks a commit makes on it before anything applies. */
export interface Workspace {
  docs: Map<string, { version: number; json: string }>;
  sets: Map<string, Set<string>>;
  hashes: Map<string, Map<string, string>>;
  counters: Map<string, number>;
  zsets: Map<string, SortedMembers>;
  events: EventLog;
  requests: Map<string, { text: string; expires: number }>;
  requestIndex: ReturnType<typeof createRequestIndex>;
  lastMs: number;
  lastSeq: number;
  /** UTF-8 bytes of the documents' JSON (the quota's document part; events are counted by the byte budget). */
  docBytes: number;
}

export const docJsonBytes = (w: Workspace, key: string) => textBytes(w.docs.get(key)?.json ?? '');

export const stale = (w: Workspace, reads: readonly DocRead[]) =>
  reads.some(({ key, version }) => (w.docs.get(key)?.version ?? 0) !== version);

/** Which fan-ins of a commit will fire, found before anything applies (their `then.reads` must hold too). */
export const firing = (w: Workspace, fanIns: readonly FanIn[]): boolean[] => {
  const removed = new Map<string, Set<string>>();
  return fanIns.map(({ set, member }) => {
    const current = w.sets.get(set);
    const gone = removed.get(set) ?? new Set<string>();
    removed.set(set, gone);
    if (!current?.has(member) || gone.has(member)) return false;
    gone.add(member);
    return current.size === gone.size;
  });
};
