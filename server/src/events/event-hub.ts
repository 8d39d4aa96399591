import type { EventEnvelope } from '@planhub/shared';
import { PlanHubError } from '@planhub/shared';
import type { Store } from '../store/store.ts';

type Listener = (event: EventEnvelope) => void;

/**
 * This node's view of every committed event, from any node (the store pushes them in log order). Calls that wait
 * for something to happen (startPlan's decision, getTaskEvents' long-poll) and the socket push use it.
 */
export class EventHub {
  private readonly byWorkspace = new Map<string, Set<Listener>>();
  private readonly detach: () => void;

  constructor(store: Store, onListenerError: (err: unknown) => void) {
    this.detach = store.onEvent((event) => {
      for (const listener of this.byWorkspace.get(event.workspace) ?? []) {
        try {
          listener(event);
        } catch (err) {
          onListenerError(err);
        }
      }
    });
  }

  listen(workspace: string, listener: Listener): () => void {
    let set = this.byWorkspace.get(workspace);
    if (!set) this.byWorkspace.set(workspace, (set = new Set()));
    set.add(listener);
    // Idempotent, and it drops only its own set: a second call (waitFor's stop runs on both resolve and cancel) must
    // not remove the set a later listener of the same workspace created, which would leave that listener deaf.
    return () => {
      if (!set.delete(listener)) return;
      if (set.size === 0 && this.byWorkspace.get(workspace) === set) this.byWorkspace.delete(workspace);
    };
  }

  /**
   * Resolves with the first event matching `predicate`. Start waiting BEFORE the commit that could cause it, so a
   * fast decision on another node is not missed.
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
    this.detach();
    this.byWorkspace.clear();
  }
}
