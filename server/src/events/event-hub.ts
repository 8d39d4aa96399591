import type { EventEnvelope } from '@planhub/shared';
import { PlanHubError } from '@planhub/shared';
import type { Store } from '../store/store.ts';
import { FanOutQueue, type Listener } from './fan-out-queue.ts';

interface Watched {
  listeners: Set<Listener>;
  unwatch: () => void;
  queue: FanOutQueue;
}

/**
 * This node's view of the committed events of the workspaces its callers watch, from any node (the store pushes
 * them in log order, none missed across faults). Calls that wait for something to happen (startPlan's decision,
 * getTaskEvents' long-poll, waitForEvents) and the socket and MCP pushes use it. The first listener of a workspace
 * makes the store watch it and the last one to leave stops that, so a node's event traffic follows its own clients.
 * A workspace's events reach its listeners in log order through its FanOutQueue, which hands a large fan-out out a
 * chunk at a time so that other workspaces' calls are served in between.
 */
export class EventHub {
  private readonly byWorkspace = new Map<string, Watched>();
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly onListenerError: (err: unknown) => void,
  ) {}

  /** Events of `workspace` committed from now on (what the caller reads or commits next comes after "now"). */
  listen(workspace: string, listener: Listener): () => void {
    let entry = this.byWorkspace.get(workspace);
    if (!entry && !this.closed) {
      const listeners = new Set<Listener>();
      const queue = new FanOutQueue((listener) => listeners.has(listener), this.onListenerError);
      const unwatch = this.store.watch(workspace, (event) => queue.push(event, [...listeners]));
      this.byWorkspace.set(workspace, (entry = { listeners, unwatch, queue }));
    }
    const own = entry;
    own?.listeners.add(listener);
    // Idempotent, and it drops only its own entry: a second call (waitFor's stop runs on both resolve and cancel)
    // must not remove the entry a later listener of the same workspace created, which would leave that one deaf.
    return () => {
      if (!own?.listeners.delete(listener)) return;
      if (own.listeners.size === 0 && this.byWorkspace.get(workspace) === own) {
        this.byWorkspace.delete(workspace);
        own.unwatch();
        own.queue.close();
      }
    };
  }

  /**
   * Resolves with the first event matching `predicate`. Start waiting BEFORE the commit that could cause it, or read
   * the state again once waiting (startPlan does), so a fast decision on another node is not missed.
   */
  waitFor(
    workspace: string,
    predicate: (event: EventEnvelope) => boolean,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): { promise: Promise<EventEnvelope | undefined>; cancel: () => void } {
    let cancel = () => {};
    const promise = new Promise<EventEnvelope | undefined>((resolve, reject) => {
      const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => done(undefined), options.timeoutMs);
      const onAbort = () => {
        stop();
        reject(new PlanHubError('UNAVAILABLE', 'The connection closed while waiting; retry the call.'));
      };
      const off = this.listen(workspace, (event) => {
        if (predicate(event)) done(event);
      });
      const stop = () => {
        off();
        if (timer) clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      };
      const done = (event: EventEnvelope | undefined) => {
        stop();
        resolve(event);
      };
      cancel = () => done(undefined);
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener('abort', onAbort, { once: true });
    });
    // A caller may still be busy (reading the log, committing) when the connection closes, or may never await the
    // wait (startPlan with wait=false): the rejection must not count as unhandled, which would end the process.
    promise.catch(() => undefined);
    return { promise, cancel };
  }

  close(): void {
    this.closed = true;
    for (const { unwatch, queue } of this.byWorkspace.values()) {
      unwatch();
      queue.close();
    }
    this.byWorkspace.clear();
  }
}
