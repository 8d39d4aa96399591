import type { EventEnvelope, NewEvent } from '@planhub/shared';
import { storedValue } from './bumped-doc.ts';
import { boundRefusal } from './set-bounds.ts';
import { serializedBytes, withEventId } from '@planhub/shared';
import { envelopeBytes } from '../events/event-json.ts';
import { createEventByteBudget } from './event-byte-budget.ts';
import { EventLog } from './memory-event-log.ts';
import { textBytes } from '../limits/text-bytes.ts';
import { writeTexts } from './workspace-bytes.ts';
import { commitRefusal } from './memory-commit-bytes.ts';
import { createNodeBytes, WORKSPACE_BYTES } from './memory-node-bytes.ts';
import { fillAnswer } from './fill.ts';
import { createMemoryLimits } from './limits/memory-limits.ts';
import { decodeRemembered, encodeRemembered } from './request-fingerprint.ts';
import { createRequestIndex } from './request-index.ts';
import { createRememberedAnswers } from './memory-requests.ts';
import { createMemoryPresence } from './presence/memory-presence.ts';
import { createMemoryRevocations } from './revocations/revocations.ts';
import { SortedMembers } from './sorted-members.ts';
import { loadFromSnapshot, settled, type SnapshotReads } from './snapshot-load.ts';
import { applyOps, fireFanIn, writeDocs } from './memory-apply.ts';
import { emptyWorkspace, firing, heldBytes, stale, type Workspace } from './memory-workspace.ts';
import type {
  CollectionRead,
  Commit,
  CommitOutcome,
  DocWrite,
  EventListener,
  EventRange,
  LoadedCollections,
  LoadedDoc,
  RangeRead,
  RangeSlice,
  Store,
} from './store.ts';

export interface MemoryStoreOptions {
  /** Events kept per workspace log (oldest trimmed first). */
  eventRetention: number;
  /** JSON bytes of events kept across all workspace logs (see event-byte-budget.ts); unbounded when absent. */
  eventBytes?: number;
  /** Stored bytes (documents + events kept) one workspace may hold; unbounded when absent. */
  workspaceBytes?: number;
  /**
   * What the whole store may hold: documents, collections, remembered answers and events of every workspace
   * (memory-node-bytes.ts); unbounded when absent.
   */
  storeBytes?: number;
  now?: () => number;
  /**
   * Told of a listener that threw. The commit has applied by then, so its answer stays `ok`; the other listeners
   * still get the event. Default: the error is rethrown in a microtask, an uncaught exception nobody can miss.
   */
  onListenerError?: (err: unknown, event: EventEnvelope) => void;
}

/**
 * The embedded store: one process, nothing to install. A commit runs synchronously, so it is atomic by construction;
 * documents are kept as JSON text so no caller can mutate stored state by reference.
 */
export const createMemoryStore = (options: MemoryStoreOptions): Store => {
  const workspaces = new Map<string, Workspace>();
  /** Watchers by workspace: a commit tells only its own workspace's. */
  const watchers = new Map<string, Set<EventListener>>();
  const now = options.now ?? Date.now;
  const onListenerError =
    options.onListenerError ??
    ((err: unknown) =>
      queueMicrotask(() => {
        throw err;
      }));
  let closed = false;
  // Always counting: the per-workspace quota reads each log's bytes from it.
  // Events are dropped past their budget, never refused; were that budget the store's bound or more, a store full of
  // events would refuse every write for good (a 300 KB bound beside the default 256 MiB event budget did, after 388
  // commits). So events may take at most half the bound, whatever PLANHUB_MEMORY_EVENT_BYTES says.
  const eventBytes = Math.min(
    options.eventBytes ?? Number.POSITIVE_INFINITY,
    options.storeBytes === undefined ? Number.POSITIVE_INFINITY : Math.floor(options.storeBytes / 2),
  );
  const budget = createEventByteBudget(eventBytes);
  const node = createNodeBytes({
    storeBytes: options.storeBytes,
    ...(Number.isFinite(eventBytes) ? { eventBytes } : {}),
  });

  /** A workspace to write in, kept from then on. */
  const ws = (name: string): Workspace => {
    let w = workspaces.get(name);
    if (!w) {
      w = emptyWorkspace(new EventLog(node.events), createRequestIndex());
      workspaces.set(name, w);
      budget.track(name, w.events);
      node.changed(WORKSPACE_BYTES);
    }
    return w;
  };
  // Reads of a workspace nobody wrote see an empty one that is not kept: reads cannot be refused, so a read of a
  // new name each time must not grow the heap.
  const nothing = emptyWorkspace(new EventLog(), createRequestIndex());
  const peek = (name: string): Workspace => workspaces.get(name) ?? nothing;

  const requestKey = (agentId: string, requestId: string) => `${agentId}\u0000${requestId}`;
  const answers = createRememberedAnswers(node, now);

  const rememberedAnswer = (workspace: string, request: { agent_id: string; request_id: string }) => {
    const entry = answers.live(peek(workspace), requestKey(request.agent_id, request.request_id));
    return entry ? decodeRemembered(entry.text, request) : undefined;
  };

  const nextId = (w: Workspace): string => {
    const ms = now();
    if (ms > w.lastMs) {
      w.lastMs = ms;
      w.lastSeq = 0;
    } else {
      w.lastSeq += 1;
    }
    return `${w.lastMs}-${w.lastSeq}`;
  };

  const loadDocs = (workspace: string, keys: readonly string[]) => {
    const w = peek(workspace);
    return keys.map((key): LoadedDoc => {
      const doc = w.docs.get(key);
      return doc
        ? { value: storedValue(key, doc.json, `${workspace}\u0000${key}@${doc.version}`), version: doc.version }
        : { value: undefined, version: 0 };
    });
  };
  const readCollections = (workspace: string, read: CollectionRead): LoadedCollections => {
    const w = peek(workspace);
    return {
      sets: (read.sets ?? []).map((key) => [...(w.sets.get(key) ?? [])]),
      hashes: (read.hashes ?? []).map((key) => Object.fromEntries(w.hashes.get(key) ?? [])),
      counters: (read.counters ?? []).map((key) => w.counters.get(key) ?? 0),
    };
  };

  const readRanges = (w: Workspace, read: RangeRead): RangeSlice[] => {
    const zset = w.zsets.get(read.key) ?? new SortedMembers();
    const values = read.values === undefined ? undefined : w.hashes.get(read.values);
    return read.ranges.map((range) => zset.slice(range, (member) => values?.get(member)));
  };

  const snapshotReads: SnapshotReads = {
    docs: loadDocs,
    hashes: (workspace, keys) => readCollections(workspace, { hashes: keys }).hashes,
    ranges: (workspace, read) => readRanges(peek(workspace), read),
    request: rememberedAnswer,
  };

  return {
    kind: 'memory',
    limits: createMemoryLimits(),
    presence: createMemoryPresence(undefined, { node, holds: (name) => workspaces.has(name) }),
    revocations: ({ log }) => createMemoryRevocations((err) => log.error({ err }, 'revocation listener failed')),
    load: (workspace, keys) => Promise.resolve(loadDocs(workspace, keys)),
    // Every read happens in this one turn: no commit can come between them.
    loadWith: (workspace, keys, alongside) =>
      settled(() => loadFromSnapshot(snapshotReads, workspace, keys, alongside)),
    loadCollections: (workspace, read) => Promise.resolve(readCollections(workspace, read)),
    commit(workspace, commit: Commit): Promise<CommitOutcome> {
      // Expired answers leave first, so that their bytes are free for this commit.
      answers.sweep();
      // Checked on what is there: a refused commit must not leave a new workspace behind.
      const seen = peek(workspace);
      const fanIns = commit.fanIns ?? [];
      const fires = firing(seen, fanIns);
      const reqKey = commit.request && requestKey(commit.request.agent_id, commit.request.request_id);
      if (
        stale(seen, commit.reads) ||
        fanIns.some((f, i) => fires[i] && stale(seen, f.then.reads)) ||
        (reqKey !== undefined && answers.live(seen, reqKey))
      )
        return Promise.resolve({ ok: false, reason: 'conflict' });
      const overBound = boundRefusal(commit.ops ?? [], (key) => seen.sets.get(key));
      if (overBound) return Promise.resolve(overBound);
      const texts = writeTexts(commit.writes);
      const textOf = (doc: DocWrite) => texts.get(doc) ?? JSON.stringify(doc.value);
      const remembered =
        commit.request && reqKey !== undefined
          ? {
              key: reqKey,
              text: encodeRemembered(
                commit.request.fingerprint,
                fillAnswer(JSON.stringify(commit.request.answer ?? null), fanIns, fires),
              ),
            }
          : undefined;
      const refused = commitRefusal({
        w: seen,
        created: seen === nothing,
        commit,
        fires,
        written: (doc) => (texts.has(doc) ? textBytes(textOf(doc)) : serializedBytes(doc.value)),
        workspaceEvents: budget.bytes(workspace),
        workspaceBytes: options.workspaceBytes,
        node,
        remembered,
      });
      // The node's refusal is an error, as the Redis store's out-of-memory one: transact.ts words only the quota.
      if (refused) return 'error' in refused ? Promise.reject(refused.error) : Promise.resolve(refused.quota);
      const w = ws(workspace);
      const held = heldBytes(w);
      const counters: number[] = [];
      writeDocs(w, commit.writes, textOf);
      applyOps(w, commit.ops ?? [], counters);
      if (commit.request && remembered) answers.remember(w, remembered.key, remembered.text, commit.request);
      const newEvents: NewEvent[] = [...commit.events];
      for (const fanIn of fanIns) {
        if (!w.sets.get(fanIn.set)?.has(fanIn.member)) continue;
        applyOps(w, [{ op: 'srem', key: fanIn.set, members: [fanIn.member] }], counters);
        if (fanIn.record) applyOps(w, [{ op: 'hset', key: fanIn.record.hash, fields: fanIn.record.fields }], counters);
        // The emptied set is gone (applyOps drops it): the fan-in fires.
        if (w.sets.has(fanIn.set)) continue;
        newEvents.push(...fireFanIn(w, fanIn, counters));
      }
      node.changed(heldBytes(w) - held);
      const logged = newEvents.map((e) => {
        const id = nextId(w);
        return { event: withEventId(id, e), bytes: envelopeBytes(id, e) };
      });
      budget.append(workspace, logged, options.eventRetention);
      const events = logged.map((l) => l.event);
      const listeners = [...(watchers.get(workspace) ?? [])];
      for (const event of events)
        for (const listener of listeners) {
          try {
            listener(event);
          } catch (err) {
            onListenerError(err, event);
          }
        }
      return Promise.resolve({
        ok: true,
        events,
        ...(counters.length > 0 ? { counters } : {}),
        ...(fanIns.length > 0 ? { fired: fires } : {}),
      });
    },
    requestAnswer: (workspace, agentId, requestId) =>
      Promise.resolve(rememberedAnswer(workspace, { agent_id: agentId, request_id: requestId })),
    readEvents(workspace, range: EventRange) {
      const log = peek(workspace).events;
      if (range.after !== undefined) return Promise.resolve(log.after(range.after, range.count));
      if (range.before !== undefined) return Promise.resolve(log.before(range.before, range.count));
      return Promise.resolve(log.newest(range.count));
    },
    trimmedThrough: (workspace) => Promise.resolve(peek(workspace).events.trimmedThrough),
    watch(workspace, listener) {
      let set = watchers.get(workspace);
      if (!set) watchers.set(workspace, (set = new Set()));
      set.add(listener);
      const own = set;
      return () => {
        own.delete(listener);
        if (own.size === 0 && watchers.get(workspace) === own) watchers.delete(workspace);
      };
    },
    ping() {
      return closed ? Promise.reject(new Error('store closed')) : Promise.resolve();
    },
    // The heap is bounded by the byte bounds, which refuse writes only: reads go on, so the node stays ready.
    writeHealth: () => Promise.resolve({ ok: true }),
    close() {
      closed = true;
      watchers.clear();
      return Promise.resolve();
    },
  };
};
