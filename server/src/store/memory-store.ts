import type { EventEnvelope } from '@planhub/shared';
import { compareEventIds } from '@planhub/shared';
import { createEventByteBudget } from './event-byte-budget.ts';
import type { Commit, CommitOutcome, EventListener, EventRange, LoadedDoc, Store } from './store.ts';

interface Workspace {
  docs: Map<string, { version: number; json: string }>;
  events: EventEnvelope[];
  requests: Map<string, { json: string; expires: number }>;
  lastMs: number;
  lastSeq: number;
}

export interface MemoryStoreOptions {
  /** Events kept per workspace log (oldest trimmed first). */
  eventRetention: number;
  /** JSON bytes of events kept across all workspace logs (see event-byte-budget.ts); unbounded when absent. */
  eventBytes?: number;
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
  const listeners = new Set<EventListener>();
  const now = options.now ?? Date.now;
  const onListenerError =
    options.onListenerError ??
    ((err: unknown) =>
      queueMicrotask(() => {
        throw err;
      }));
  let closed = false;
  const budget = options.eventBytes === undefined ? undefined : createEventByteBudget(options.eventBytes);

  const ws = (name: string): Workspace => {
    let w = workspaces.get(name);
    if (!w) {
      w = { docs: new Map(), events: [], requests: new Map(), lastMs: 0, lastSeq: -1 };
      workspaces.set(name, w);
      budget?.track(name, w.events);
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

  return {
    kind: 'memory',
    load(workspace, keys) {
      const w = ws(workspace);
      return Promise.resolve(
        keys.map((key): LoadedDoc => {
          const doc = w.docs.get(key);
          return doc
            ? { value: JSON.parse(doc.json) as unknown, version: doc.version }
            : { value: undefined, version: 0 };
        }),
      );
    },
    commit(workspace, commit: Commit): Promise<CommitOutcome> {
      const w = ws(workspace);
      const stale = commit.reads.some(({ key, version }) => (w.docs.get(key)?.version ?? 0) !== version);
      const reqKey = commit.request && requestKey(commit.request.agent_id, commit.request.request_id);
      if (stale || (reqKey !== undefined && liveRequest(w, reqKey)))
        return Promise.resolve({ ok: false, reason: 'conflict' });
      for (const { key, value } of commit.writes) {
        if (value === null) w.docs.delete(key);
        else w.docs.set(key, { version: (w.docs.get(key)?.version ?? 0) + 1, json: JSON.stringify(value) });
      }
      if (commit.request && reqKey !== undefined) {
        w.requests.set(reqKey, {
          json: JSON.stringify(commit.request.answer ?? null),
          expires: now() + commit.request.ttl_ms,
        });
      }
      const events = commit.events.map((e): EventEnvelope => ({ event_id: nextId(w), ...e }));
      w.events.push(...events);
      if (w.events.length > options.eventRetention) {
        const trimmed = w.events.splice(0, w.events.length - options.eventRetention);
        budget?.removed(workspace, trimmed);
      }
      budget?.added(workspace, events);
      for (const event of events)
        for (const listener of listeners) {
          try {
            listener(event);
          } catch (err) {
            onListenerError(err, event);
          }
        }
      return Promise.resolve({ ok: true, events });
    },
    requestAnswer(workspace, agentId, requestId) {
      const entry = liveRequest(ws(workspace), requestKey(agentId, requestId));
      return Promise.resolve(entry ? { answer: JSON.parse(entry.json) as unknown } : undefined);
    },
    readEvents(workspace, range: EventRange) {
      const events = ws(workspace).events;
      if (range.after === undefined) return Promise.resolve(events.slice(-range.count));
      const after = range.after;
      const start = events.findIndex((e) => compareEventIds(e.event_id, after) > 0);
      return Promise.resolve(start === -1 ? [] : events.slice(start, start + range.count));
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    ping() {
      return closed ? Promise.reject(new Error('store closed')) : Promise.resolve();
    },
    close() {
      closed = true;
      listeners.clear();
      return Promise.resolve();
    },
  };
};
