import type { CallAck } from '@planhub/shared';
import { TOOLS, isToolName } from '@planhub/shared';
import { callBudget } from '../store/call-budget.ts';
import { dataLossError } from '../store/data-loss.ts';
import type { DataLoss } from '../store/store.ts';
import type { CallSite, Dispatch } from '../tools/dispatch.ts';
import { CallSignals } from './call-signals.ts';
import type { Metrics } from './metrics.ts';

export interface DataLossWatch {
  /** The store's loss, once seen (see store/redis/store-epoch.ts). */
  dataLoss: () => DataLoss | undefined;
  /** Told once, when this gate first sees the loss. */
  onLoss: () => void;
}

const planIdOf = (raw: unknown): string | undefined => {
  const planId = (raw as { args?: { plan_id?: unknown } } | null)?.args?.plan_id;
  return typeof planId === 'string' || typeof planId === 'number' ? String(planId).slice(0, 128) : undefined;
};

const dataLossAck = (raw: unknown): CallAck => ({ ok: false, error: dataLossError(planIdOf(raw)).toShape() });

const isReadOnly = (raw: unknown): boolean => {
  const tool = (raw as { tool?: unknown } | null)?.tool;
  return typeof tool === 'string' && isToolName(tool) && TOOLS[tool].readOnly;
};

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
export const createCallGate = (
  dispatch: Dispatch,
  metrics: Metrics,
  options: { storeDeadlineMs?: number; loss?: DataLossWatch } = {},
) => {
  const { loss } = options;
  const shutdown = new AbortController();
  // Ends waiting calls (long-polls, approvals) when the store is found wiped: what they wait for is gone.
  const lost = new AbortController();
  // One signal per caller signal (a socket's lives as long as its connection), not one per call; it aborts with the
  // caller's, and on shutdown and data loss without registering anything on this gate's own signals (call-signals.ts).
  const signals = new CallSignals();
  const noticeLoss = () => {
    if (lost.signal.aborted) return;
    lost.abort();
    signals.abortAll(lost.signal.reason);
    loss?.onLoss();
  };
  let inflight = 0;
  let onIdle: (() => void) | undefined;
  const held = new Set<() => void>();
  const hold = () => new Promise<CallAck>((resolve) => held.add(() => resolve(SHUTTING_DOWN)));

  const gated: Dispatch = async (site, raw) => {
    if (shutdown.signal.aborted) return hold();
    if (lost.signal.aborted || loss?.dataLoss() !== undefined) {
      noticeLoss();
      metrics.observeCall(toolLabel(raw), 'DATA_LOSS', 0);
      return dataLossAck(raw);
    }
    const scope = signals.enter(site.signal);
    inflight += 1;
    const started = performance.now();
    try {
      const { signal } = scope;
      // One deadline for all the call's store round trips (see store/call-budget.ts).
      const budget = options.storeDeadlineMs === undefined ? undefined : callBudget(options.storeDeadlineMs);
      // Object.assign, not a spread: spreading the site (its shape varies with its optional fields) took V8's
      // slow path, about 2 % of a node's CPU.
      const gatedSite: CallSite = Object.assign({}, site, { signal });
      if (budget) gatedSite.budget = budget;
      let ack = await dispatch(gatedSite, raw);
      if (shutdown.signal.aborted && !ack.ok && ack.error.code === 'UNAVAILABLE') return hold();
      if (!ack.ok && ack.error.code === 'DATA_LOSS') noticeLoss();
      // A wait cut short by the loss (or a read of the emptied store) must not pass for a normal answer.
      if (lost.signal.aborted && (!ack.ok || isReadOnly(raw))) ack = dataLossAck(raw);
      metrics.observeCall(toolLabel(raw), ack.ok ? 'OK' : ack.error.code, (performance.now() - started) / 1000);
      return ack;
    } finally {
      signals.leave(scope);
      inflight -= 1;
      if (inflight === 0) onIdle?.();
    }
  };

  return {
    dispatch: gated,
    /** The store was found wiped: waiting calls end with DATA_LOSS, and every later call answers it. */
    noticeLoss,
    get draining(): boolean {
      return shutdown.signal.aborted;
    },
    /** Starts draining; resolves true when in-flight calls are done, false if `graceMs` passed first. */
    drain(graceMs: number): Promise<boolean> {
      shutdown.abort();
      signals.abortAll(shutdown.signal.reason);
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
