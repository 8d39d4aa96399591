import type { DashboardState } from './state.ts';

/** How often a connected page asks the node whether it can reach its store. */
export const STORE_CHECK_MS = 5_000;
/** How long one check may take before it is given up and the next one may run. */
const CHECK_DEADLINE_MS = 3_000;

interface Readiness {
  status?: string;
  reason?: string;
  message?: string;
}

const KIND_OF_REASON: Record<string, 'unreachable' | 'full' | 'events'> = {
  store_unreachable: 'unreachable',
  store_out_of_memory: 'full',
  store_events_down: 'events',
};

export interface StoreHealthDeps {
  state: DashboardState;
  /** The store was found wiped: final for this page (data-loss.ts). */
  lose: (message: string) => void;
  changed: () => void;
}

/**
 * Polls the node's /readyz (same origin, no token needed) while the socket is up. A socket stays connected while
 * the node cannot reach Redis (killed, or hung with SIGSTOP), so the pill alone said "live" while nothing could be
 * read or recorded; no event is pushed about it either, since events live in that store. /readyz is the node's own
 * answer to exactly this question, and it costs no call from the page's budget.
 */
export const watchStoreHealth = ({ state, lose, changed }: StoreHealthDeps) => {
  let inFlight = false;
  // A function, not a narrowed field: the answer comes after an await, when it may have changed. A lost store is
  // still checked: the only news left for that page is that the nodes were restarted, when a reload helps.
  const settled = () => state.status !== 'live';
  const check = async () => {
    if (inFlight || settled()) return;
    inFlight = true;
    try {
      // With a deadline: one request that never ended (a proxy holding it, a node frozen mid-answer) held `inFlight`
      // and stopped every later check. The node answers within 700 ms by design.
      const res = await fetch('/readyz', { cache: 'no-store', signal: AbortSignal.timeout(CHECK_DEADLINE_MS) });
      const body = (await res.json().catch(() => ({}))) as Readiness;
      const trouble = state.storeTrouble;
      if (settled()) return;
      if (trouble?.kind === 'lost') {
        if (res.ok && trouble.backSince === undefined) {
          trouble.backSince = Date.now();
          changed();
        }
        return;
      }
      if (res.ok) {
        if (trouble) {
          state.storeTrouble = undefined;
          changed();
        }
        return;
      }
      if (body.reason === 'store_data_lost') return lose(body.message ?? 'The store lost its data.');
      // Shutting down is the socket's news (it drops next).
      const kind = KIND_OF_REASON[body.reason ?? ''];
      if (!kind || trouble?.kind === kind) return;
      state.storeTrouble = { kind, since: Date.now(), message: body.message ?? 'The store refuses this node.' };
      changed();
    } catch {
      // The node itself did not answer: the socket says so soon enough.
    } finally {
      inFlight = false;
    }
  };
  setInterval(() => void check(), STORE_CHECK_MS);
  return { check: () => void check() };
};
