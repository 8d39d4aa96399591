import type { EventLog } from './memory-event-log.ts';
import type { createRequestIndex } from './request-index.ts';
import type { DocRead, FanIn } from './store.ts';
import type { SortedMembers } from './sorted-members.ts';
import { textBytes } from '../limits/text-bytes.ts';

/** A remembered answer, under its request key (`<agent>\0<request_id>`). */
export interface Remembered {
  text: string;
  expires: number;
  agent: string;
  key: string;
}

/** One workspace of the memory store, and the checks a commit makes on it before anything applies. */
export interface Workspace {
  docs: Map<string, { version: number; json: string }>;
  sets: Map<string, Set<string>>;
  hashes: Map<string, Map<string, string>>;
  counters: Map<string, number>;
  zsets: Map<string, SortedMembers>;
  events: EventLog;
  requests: Map<string, Remembered>;
  requestIndex: ReturnType<typeof createRequestIndex>;
  lastMs: number;
  lastSeq: number;
  /** UTF-8 bytes of the documents' JSON (the quota's document part; events are counted by the byte budget). */
  docBytes: number;
  /** What the collections count toward the node's bound (memory-collection-bytes.ts). */
  collectionBytes: number;
  /** UTF-8 bytes of the remembered answers and their keys. */
  requestBytes: number;
}

/** A workspace with nothing in it: what a read of a workspace nobody wrote sees, without being kept. */
export const emptyWorkspace = (events: EventLog, requestIndex: ReturnType<typeof createRequestIndex>): Workspace => ({
  docs: new Map(),
  sets: new Map(),
  hashes: new Map(),
  counters: new Map(),
  zsets: new Map(),
  events,
  requests: new Map(),
  requestIndex,
  lastMs: 0,
  lastSeq: -1,
  docBytes: 0,
  collectionBytes: 0,
  requestBytes: 0,
});

/** Everything but events that the workspace counts toward the node's bound (events have their own total). */
export const heldBytes = (w: Workspace) => w.docBytes + w.collectionBytes + w.requestBytes;

const requestEntryBytes = (key: string, text: string) => textBytes(key) + textBytes(text);

export const rememberRequest = (w: Workspace, entry: Remembered) => {
  forgetRequest(w, entry.key);
  w.requests.set(entry.key, entry);
  w.requestBytes += requestEntryBytes(entry.key, entry.text);
};

export const forgetRequest = (w: Workspace, key: string) => {
  const entry = w.requests.get(key);
  if (!entry) return;
  w.requests.delete(key);
  w.requestBytes -= requestEntryBytes(key, entry.text);
};

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
