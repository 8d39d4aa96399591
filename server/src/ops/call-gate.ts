import type { CallAck } from '@planhub/shared';
import { isToolName } from '@planhub/shared';
import type { Dispatch } from '../tools/dispatch.ts';
import type { Metrics } from './metrics.ts';

const SHUTTING_DOWN: CallAck = {
  ok: false,
  error: {
    code: 'UNAVAILABLE',
    message: 'This PlanHub node is shutting down; retry the call (another node will answer).',
  },
};

/** The tool label of a call; names outside the catalog share one label so a client cannot inflate the metrics. */
const toolLabel = (raw: unknown): string => {
  const tool = (raw as { tool?: unknown } | null)?.tool;
  return typeof tool === 'string' && isToolName(tool) ? tool : 'unknown';
};

/**
 * Sits in front of dispatch: measures every call, and makes shutdown graceful. When draining starts, new calls are
 * held, calls that are only waiting (startPlan's decision, long-polls) are ended through their abort signal, and
 * calls doing work finish. Held and ended-by-shutdown calls are never answered on this node: their clients see the
 * disconnect that follows and retry on another node (startPlan and request_id retries are safe by design).
 */
export const createCallGate = (dispatch: Dispatch, metrics: Metrics) => {
  const shutdown = new AbortController();
  let inflight = 0;
  let onIdle: (() => void) | undefined;
  const held = new Set<() => void>();
  const hold = () => new Promise<CallAck>((resolve) => held.add(() => resolve(SHUTTING_DOWN)));
  // One combined signal per caller signal (a socket's lives as long as its connection): AbortSignal.any per call
  // costs an allocation and leaves a dependent on the connection's signal until a GC, which its abort then walks.
  const combined = new WeakMap<AbortSignal, AbortSignal>();
  const signalOf = (signal: AbortSignal) => {
    let both = combined.get(signal);
    if (!both) combined.set(signal, (both = AbortSignal.any([signal, shutdown.signal])));
    return both;
  };

  const gated: Dispatch = async (site, raw) => {
    if (shutdown.signal.aborted) return hold();
    inflight += 1;
    const started = performance.now();
    try {
      const ack = await dispatch({ ...site, signal: signalOf(site.signal) }, raw);
      if (shutdown.signal.aborted && !ack.ok && ack.error.code === 'UNAVAILABLE') return hold();
      metrics.observeCall(toolLabel(raw), ack.ok ? 'OK' : ack.error.code, (performance.now() - started) / 1000);
      return ack;
    } finally {
      inflight -= 1;
      if (inflight === 0) onIdle?.();
    }
  };

  return {
    dispatch: gated,
    get draining(): boolean {
      return shutdown.signal.aborted;
    },
    /** Starts draining; resolves true when in-flight calls are done, false if `graceMs` passed first. */
    drain(graceMs: number): Promise<boolean> {
      shutdown.abort();
      if (inflight === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), graceMs);
        onIdle = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
    },
    /** Once clients are gone: settles held calls so nothing is left pending. */
    release(): void {
      for (const settle of held) settle();
      held.clear();
    },
  };
};
