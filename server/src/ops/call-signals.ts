import { setMaxListeners } from 'node:events';
import { WAITS_PER_CONNECTION } from '../limits/wait-slots.ts';

/** The signal the gate hands the calls of one caller signal. */
export interface CallScope {
  readonly signal: AbortSignal;
}

interface Scope extends CallScope {
  readonly controller: AbortController;
  /** Its calls running now. */
  calls: number;
}

/**
 * The gate's call signals: a call's signal aborts when its caller's does (a socket's on its disconnect, an MCP
 * call's on its cancel or its session's end) and when the node ends every call (`abortAll`: shutdown, data loss).
 *
 * One scope per caller signal, so a socket connection costs one allocation, not one per call. Nothing is registered
 * on a signal that outlives its caller: a scope listens only on its caller's signal (and goes with it), and `abortAll`
 * reaches the scopes that have calls running through `running`, which a call leaves when it ends. AbortSignal.any
 * over the node's own signals, as before, left one WeakRef on them per connection and per MCP call for the life of
 * the process (Node 20). A scope with no call running is aborted on its next `enter`, before any call sees it.
 */
export class CallSignals {
  private readonly scopes = new WeakMap<AbortSignal, Scope>();
  private readonly running = new Set<Scope>();
  private ended: { reason: unknown } | undefined;

  /** The scope of a call starting under `caller`; `leave` it when the call ends. */
  enter(caller: AbortSignal): CallScope {
    let scope = this.scopes.get(caller);
    if (!scope) {
      const controller = new AbortController();
      scope = { signal: controller.signal, controller, calls: 0 };
      // Each wait among the connection's calls listens on it: past the waits an agent may hold, a leak.
      setMaxListeners(WAITS_PER_CONNECTION, controller.signal);
      if (caller.aborted) controller.abort(caller.reason);
      else caller.addEventListener('abort', () => controller.abort(caller.reason), { once: true });
      this.scopes.set(caller, scope);
    }
    if (this.ended && !scope.signal.aborted) scope.controller.abort(this.ended.reason);
    scope.calls += 1;
    this.running.add(scope);
    return scope;
  }

  leave(left: CallScope): void {
    const scope = left as Scope;
    scope.calls -= 1;
    if (scope.calls === 0) this.running.delete(scope);
  }

  /** Aborts every running call's signal, and every one handed out from now on (the first reason stands). */
  abortAll(reason: unknown): void {
    this.ended ??= { reason };
    for (const scope of this.running) scope.controller.abort(reason);
  }

  /** Scopes with calls running: what `abortAll` holds on to (bounded by the calls in flight). */
  get runningScopes(): number {
    return this.running.size;
  }
}
