import type { EventEnvelope, NewEvent } from '@planhub/shared';
import { parseStoredJson } from './parsed-json.ts';
import { compareEventIds, serializedBytes } from '@planhub/shared';
import { createEventByteBudget } from './event-byte-budget.ts';
import { commitBytes, textBytes, writeTexts } from './workspace-bytes.ts';
import { applyFill, fillAnswer, fillText } from './fill.ts';
import { createMemoryLimits } from './limits/memory-limits.ts';
import { decodeRemembered, encodeRemembered } from './request-fingerprint.ts';
import { createRequestIndex } from './request-index.ts';
import { createMemoryPresence } from './presence/memory-presence.ts';
import { createMemoryRevocations } from './revocations/revocations.ts';
import { SortedMembers } from './sorted-members.ts';
import { docJsonBytes, firing, stale, type Workspace } from './memory-workspace.ts';
import type {
  CollectionRead,
  Commit,
  CommitOutcome,
  DocWrite,
  EventListener,
  EventRange,
  FanIn,
  LoadedCollections,
  LoadedDoc,
  RangeRead,
  RangeSlice,
  Store,
  StoreOp,
} from './store.ts';

export interface MemoryStoreOptions {
  /** Events kept per workspace log (oldest trimmed first). */
  eventRetention: number;
  /** JSON bytes of events kept across all workspace logs (see event-byte-budget.ts); unbounded when absent. */
  eventBytes?: number;
  /** Stored bytes (documents + events kept) one workspace may hold; unbounded when absent. */
  workspaceBytes?: number;
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
  const budget = createEventByteBudget(options.eventBytes ?? Number.POSITIVE_INFINITY);

  const ws = (name: string): Workspace => {
    let w = workspaces.get(name);
    if (!w) {
      w = {
        docs: new Map(),
        sets: new Map(),
        hashes: new Map(),
        counters: new Map(),
        zsets: new Map(),
        events: [],
        requests: new Map(),
        requestIndex: createRequestIndex(),
        lastMs: 0,
        lastSeq: -1,
        docBytes: 0,
      };
      workspaces.set(name, w);
      budget.track(name, w.events);
    }
    return w;
  };

  const requestKey = (agentId: string, requestId: string) => `${agentId}\u0000${requestId}`;

  const liveRequest = (w: Workspace, key: string) => {
    const entry = w.requests.get(key);
    if (entry && entry.expires <= now()) {
      w.requests.delete(key);
      return undefined;
    }
    return entry;
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

  const write = (w: Workspace, writes: readonly DocWrite[], json: (w: DocWrite) => string) => {
    for (const doc of writes) {
      w.docBytes -= docJsonBytes(w, doc.key);
      if (doc.value === null) w.docs.delete(doc.key);
      else {
        const text = json(doc);
        w.docs.set(doc.key, { version: (w.docs.get(doc.key)?.version ?? 0) + 1, json: text });
        w.docBytes += textBytes(text);
      }
    }
  };

  const apply = (w: Workspace, ops: readonly StoreOp[], counters: number[]) => {
    for (const op of ops) {
      if (op.op === 'sadd') {
        const set = w.sets.get(op.key) ?? new Set<string>();
        for (const m of op.members) set.add(m);
        w.sets.set(op.key, set);
      } else if (op.op === 'srem') {
        const set = w.sets.get(op.key);
        for (const m of op.members) set?.delete(m);
        if (set?.size === 0) w.sets.delete(op.key);
      } else if (op.op === 'hset') {
        const hash = w.hashes.get(op.key) ?? new Map<string, string>();
        for (const [f, v] of Object.entries(op.fields)) if (!op.onlyNew || !hash.has(f)) hash.set(f, v);
        w.hashes.set(op.key, hash);
      } else if (op.op === 'hdel') {
        const hash = w.hashes.get(op.key);
        for (const f of op.fields) hash?.delete(f);
        if (hash?.size === 0) w.hashes.delete(op.key);
      } else if (op.op === 'incr') {
        const value = (w.counters.get(op.key) ?? 0) + op.by;
        w.counters.set(op.key, value);
        counters.push(value);
      } else if (op.op === 'zadd') {
        const zset = w.zsets.get(op.key) ?? new SortedMembers();
        for (const [m, score] of Object.entries(op.members)) zset.add(m, score);
        w.zsets.set(op.key, zset);
      } else if (op.op === 'zrem') {
        const zset = w.zsets.get(op.key);
        for (const m of op.members) zset?.remove(m);
        if (zset?.size === 0) w.zsets.delete(op.key);
      } else if (op.kind === 'set') w.sets.delete(op.key);
      else if (op.kind === 'hash') w.hashes.delete(op.key);
      else if (op.kind === 'zset') w.zsets.delete(op.key);
      else w.counters.delete(op.key);
    }
  };

  /** A fired fan-in's writes and events, with its fills applied to their JSON text. */
  const fire = (w: Workspace, fanIn: FanIn, counters: number[]): NewEvent[] => {
    const filled = (json: string) =>
      fanIn.then.fills.reduce((text, f) => applyFill(text, f.token, fillText(w.hashes.get(f.hash), f.as)), json);
    const events = fanIn.then.events.map((e) => JSON.parse(filled(JSON.stringify(e))) as NewEvent);
    write(w, fanIn.then.writes, (doc) => filled(JSON.stringify(doc.value)));
    apply(w, fanIn.then.ops, counters);
    return events;
  };

  const loadDocs = (workspace: string, keys: readonly string[]) => {
    const w = ws(workspace);
    return keys.map((key): LoadedDoc => {
      const doc = w.docs.get(key);
      return doc
        ? { value: parseStoredJson(doc.json, `${workspace}\u0000${key}@${doc.version}`), version: doc.version }
        : { value: undefined, version: 0 };
    });
  };
  const readCollections = (workspace: string, read: CollectionRead): LoadedCollections => {
    const w = ws(workspace);
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

  return {
    kind: 'memory',
    limits: createMemoryLimits(),
    presence: createMemoryPresence(),
    revocations: () => createMemoryRevocations(),
    load: (workspace, keys) => Promise.resolve(loadDocs(workspace, keys)),
    // Every read happens in this one turn: no commit can come between them.
    loadWith: (workspace, keys, alongside) =>
      Promise.resolve({
        docs: loadDocs(workspace, keys),
        hashes: readCollections(workspace, { hashes: alongside.hashes ?? [] }).hashes,
        ranges: (alongside.ranges ?? []).map((read) => readRanges(ws(workspace), read)),
      }),
    loadCollections: (workspace, read) => Promise.resolve(readCollections(workspace, read)),
    commit(workspace, commit: Commit): Promise<CommitOutcome> {
      const w = ws(workspace);
      const fanIns = commit.fanIns ?? [];
      const fires = firing(w, fanIns);
      const reqKey = commit.request && requestKey(commit.request.agent_id, commit.request.request_id);
      if (
        stale(w, commit.reads) ||
        fanIns.some((f, i) => fires[i] && stale(w, f.then.reads)) ||
        (reqKey !== undefined && liveRequest(w, reqKey))
      )
        return Promise.resolve({ ok: false, reason: 'conflict' });
      const texts = writeTexts(commit.writes);
      const textOf = (doc: DocWrite) => texts.get(doc) ?? JSON.stringify(doc.value);
      if (options.workspaceBytes !== undefined) {
        const needed = commitBytes(
          commit,
          fires,
          (key) => docJsonBytes(w, key),
          (doc) => (texts.has(doc) ? textBytes(textOf(doc)) : serializedBytes(doc.value)),
        );
        const used = w.docBytes + budget.bytes(workspace);
        if (needed > 0 && used + needed > options.workspaceBytes)
          return Promise.resolve({ ok: false, reason: 'quota', used, needed, limit: options.workspaceBytes });
      }
      const counters: number[] = [];
      write(w, commit.writes, textOf);
      apply(w, commit.ops ?? [], counters);
      if (commit.request && reqKey !== undefined) {
        w.requests.set(reqKey, {
          text: encodeRemembered(
            commit.request.fingerprint,
            fillAnswer(JSON.stringify(commit.request.answer ?? null), fanIns, fires),
          ),
          expires: now() + commit.request.ttl_ms,
        });
        const { agent_id, keep, ttl_ms } = commit.request;
        for (const key of w.requestIndex.remembered(agent_id, reqKey, now() + ttl_ms, keep, now()))
          w.requests.delete(key);
      }
      const newEvents: NewEvent[] = [...commit.events];
      for (const fanIn of fanIns) {
        const set = w.sets.get(fanIn.set);
        if (!set?.delete(fanIn.member)) continue;
        if (fanIn.record) apply(w, [{ op: 'hset', key: fanIn.record.hash, fields: fanIn.record.fields }], counters);
        if (set.size > 0) continue;
        w.sets.delete(fanIn.set);
        newEvents.push(...fire(w, fanIn, counters));
      }
      const events = newEvents.map((e): EventEnvelope => ({ event_id: nextId(w), ...e }));
      w.events.push(...events);
      if (w.events.length > options.eventRetention) {
        const trimmed = w.events.splice(0, w.events.length - options.eventRetention);
        budget.removed(workspace, trimmed);
      }
      budget.added(workspace, events);
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
    requestAnswer(workspace, agentId, requestId) {
      const entry = liveRequest(ws(workspace), requestKey(agentId, requestId));
      return Promise.resolve(entry ? decodeRemembered(entry.text) : undefined);
    },
    readEvents(workspace, range: EventRange) {
      const events = ws(workspace).events;
      if (range.after === undefined && range.before !== undefined) {
        const before = range.before;
        const end = events.findIndex((e) => compareEventIds(e.event_id, before) >= 0);
        const stop = end === -1 ? events.length : end;
        return Promise.resolve(events.slice(Math.max(0, stop - range.count), stop));
      }
      if (range.after === undefined) return Promise.resolve(events.slice(-range.count));
      const after = range.after;
      const start = events.findIndex((e) => compareEventIds(e.event_id, after) > 0);
      return Promise.resolve(start === -1 ? [] : events.slice(start, start + range.count));
    },
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
    // The heap is bounded by the byte budgets; there is no separate refusal state.
    writeHealth: () => Promise.resolve({ ok: true }),
    close() {
      closed = true;
      watchers.clear();
      return Promise.resolve();
    },
  };
};
