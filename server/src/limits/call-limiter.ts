import { type CallBudget, withinBudget } from '../store/call-budget.ts';
import type { Caller } from '@planhub/shared';
import { PlanHubError } from '@planhub/shared';
import type { Logger } from 'pino';
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Limits } from '../config.ts';
import type { LimitBackend } from '../store/limits/limit-backend.ts';
import { createMemoryLimits } from '../store/limits/memory-limits.ts';
import { CountsInFlight } from './counts-in-flight.ts';
import { RememberedRefusals } from './remembered-refusals.ts';

/** Counts every call an agent makes, across all nodes when the store is shared. */
export interface CallLimiter {
  /** Resolves when the call may proceed; throws RESOURCE_EXHAUSTED with details.retry_after_ms otherwise. */
  consume(caller: Caller, cost?: number, budget?: CallBudget): Promise<void>;
  /** Starts counting a call (see Admission). */
  admit(caller: Caller, cost?: number, budget?: CallBudget): Admission;
}

/**
 * A call being counted. `settled` is consume's answer. `early` says the call may start reading before it settles:
 * the agent was, at its last count in this window, at most half way through its budget, so the count's round trip
 * can travel with the call's first read instead of before it. Only a commit must wait for `settled` (and the answer,
 * so a refused call answers the refusal). An agent nearer its limit, or not seen in this window, waits first. An
 * agent this node saw refused in this window is refused at once, with no count (remembered-refusals.ts).
 */
export interface Admission {
  settled: Promise<void>;
  early: boolean;
}

/**
 * What this node knows of an agent's current window. `remaining` is what `early` is decided on (never what admits
 * a call); `granted` admits calls with no round trip: points this node already counted in the shared count and
 * has not spent. Both lapse with the window they were counted in, so no call is admitted on a window that ended.
 */
interface AgentWindow {
  /** Points left at the last count seen, less what calls sent since spent. */
  remaining: number;
  /** When the window of that count ends (epoch ms). */
  until: number;
  /** Counts this node made in this window. */
  counted: number;
  /** Points counted ahead and not yet spent. */
  granted: number;
  /** A count that takes points ahead is on its way (one at a time, which bounds what a node holds unspent). */
  ahead: boolean;
}

const MAX_AGENTS = 10_000;
/** The most points one count takes ahead: what a node may hold unspent when its agent moves to another node. */
export const MAX_TAKEN_AHEAD = 32;
/** A count takes ahead at most this share of what the window had left at the last count seen. */
const TAKEN_AHEAD_SHARE = 8;
/** Counts this node makes for an agent in a window before it takes ahead: a burst's first calls are exact. */
const COUNTS_BEFORE_TAKING_AHEAD = 4;
const RESOLVED = Promise.resolve();
/**
 * Counts one agent may have out at once on a node, at the least: a small budget (a few calls a second) must not make an
 * agent's concurrent calls wait for each other's round trips.
 */
const MIN_COUNTS_IN_FLIGHT = 64;

export interface CallLimiterOptions {
  limits: Pick<Limits, 'callsPerSecond' | 'rateWindowSeconds'>;
  /** Where the counts live (the store's limit backend); one node's memory when omitted. */
  backend?: LimitBackend;
  /** Told once per agent, window and node (the first refusal), so a flooding client cannot flood the log too. */
  log?: Logger;
}

/** A refusal by the call budget (dispatch logs these at debug: the limiter already warned once per window). */
export const isRateLimited = (error: PlanHubError): boolean =>
  error.code === 'RESOURCE_EXHAUSTED' &&
  typeof (error.details as { retry_after_ms?: unknown } | undefined)?.retry_after_ms === 'number';

/**
 * Charges work a call did past its admission (log entries scanned) to the agent's budget, once the work is done. A
 * refusal is not thrown: the limiter still counts the units, so the agent's next calls wait, while this call's work is
 * already done and its answer worth giving.
 */
export const chargeWork = async (
  limiter: CallLimiter,
  caller: Caller,
  units: number,
  budget?: CallBudget,
): Promise<void> => {
  if (units <= 0) return;
  await limiter.consume(caller, units, budget).catch((err: unknown) => {
    if (!(err instanceof PlanHubError && isRateLimited(err))) throw err;
  });
};

/**
 * A fixed window of `callsPerSecond × rateWindowSeconds` calls per agent (workspace + agent_id). On Redis the count
 * is one key per agent shared by every node (see the store's limit backend).
 *
 * An agent that calls steadily through a node (a few counts there in this window) has its counts take points
 * ahead while the window has plenty left: an eighth of what it had left, at most 32. The node admits the agent's
 * next calls from them with no round trip, so such an agent costs one count every few dozen calls instead of one
 * per call. Nothing is ever admitted beyond the window's points: points taken ahead are counted in the shared
 * count at once, and when a count overshoots the window, the node keeps only what was free when its count landed
 * (the counter is atomic, so that share is exactly the node's). What it costs: an agent calling through several
 * nodes may be refused while another node still holds up to 32 of its points unspent.
 *
 * A refusal is remembered until its window ends, and the agent's calls meanwhile are refused here: the shared count
 * of a fixed window only grows, so it would refuse them too. Each node remembers only what its own counts answered,
 * so every node still counts an agent until it sees the agent refused (one round trip per node and window).
 */
export const createCallLimiter = (options: CallLimiterOptions): CallLimiter => {
  const duration = options.limits.rateWindowSeconds;
  const points = options.limits.callsPerSecond * duration;
  const limiter = (options.backend ?? createMemoryLimits()).rateLimiter({ points, duration });
  const windows = new Map<string, AgentWindow>();
  const keyOf = (caller: Caller) => `${caller.workspace}\u0000${caller.agent_id}`;
  const current = (key: string) => {
    const window = windows.get(key);
    return window !== undefined && Date.now() < window.until ? window : undefined;
  };
  /** The window a count's answer belongs to: the one known, unless the shared count started a new one since. */
  const windowOf = (key: string, msBeforeNext: number) => {
    const until = Date.now() + msBeforeNext;
    const known = current(key);
    if (known && until - known.until < (duration * 1000) / 2) return Object.assign(known, { until });
    if (windows.size >= MAX_AGENTS && !windows.has(key)) windows.clear();
    const fresh: AgentWindow = { remaining: points, until, counted: 0, granted: 0, ahead: false };
    windows.set(key, fresh);
    return fresh;
  };
  /** Spends `cost` of the points this node holds for `key`, if it holds that many. */
  const spend = (key: string, cost: number): boolean => {
    const window = current(key);
    if (window === undefined || window.granted < cost) return false;
    window.granted -= cost;
    return true;
  };
  const refusals = new RememberedRefusals(duration * 1000, MAX_AGENTS);
  const refusal = (caller: Caller, msBeforeNext: number, first: boolean) => {
    const retryAfterMs = Math.max(1, Math.ceil(msBeforeNext));
    if (first)
      options.log?.warn(
        { agent_id: caller.agent_id, workspace: caller.workspace, limit: points, window_s: duration },
        'call budget exceeded; further refusals in this window are logged at debug',
      );
    return new PlanHubError(
      'RESOURCE_EXHAUSTED',
      `Too many calls: agent ${caller.agent_id} may make ${points} calls per ${duration} s. ` +
        `Retry in ${retryAfterMs} ms, and wait for events instead of polling.`,
      { retry_after_ms: retryAfterMs, limit: points, window_ms: duration * 1000 },
    );
  };

  const counting = new CountsInFlight(Math.max(points, MIN_COUNTS_IN_FLIGHT));
  /**
   * Counts `cost` (and some ahead) in the shared count: the path of a call the node holds no points for. At most
   * `points` counts of one agent (64 at the least) are out at once: more could never all be admitted in a window. A call
   * past that waits
   * for one to answer and is decided again, by then usually from points taken ahead or a remembered refusal. Under a
   * flood of many sockets of one agent, every call in flight at the start of a window was counted (about 1,800
   * counts a second with 20 sockets); now about `points` are.
   */
  const count = async (caller: Caller, key: string, cost: number, budget?: CallBudget): Promise<void> => {
    const turn = counting.take(key);
    if (turn !== undefined) {
      await turn;
      return consume(caller, cost, budget);
    }
    try {
      await countNow(caller, key, cost, budget);
    } finally {
      counting.release(key);
    }
  };
  const countNow = async (caller: Caller, key: string, cost: number, budget?: CallBudget): Promise<void> => {
    const known = current(key);
    const ahead =
      known !== undefined && !known.ahead && known.counted >= COUNTS_BEFORE_TAKING_AHEAD
        ? Math.max(0, Math.min(MAX_TAKEN_AHEAD, Math.floor((known.remaining - cost) / TAKEN_AHEAD_SHARE)))
        : 0;
    const want = cost + ahead;
    let res: RateLimiterRes;
    // The refusal is remembered from when the count was sent: no later than the window truly ends, however late
    // its answer is read.
    const sent = Date.now();
    try {
      if (known && ahead > 0) known.ahead = true;
      // On Redis, a round trip like the store's: it shares the call's one deadline.
      res = await withinBudget(budget, () => limiter.consume(key, want));
    } catch (refused) {
      if (!(refused instanceof RateLimiterRes)) throw refused;
      const window = windowOf(key, refused.msBeforeNext);
      window.counted += 1;
      window.remaining = 0;
      // The count landed past the window's points: what was free when it landed is this node's, the rest nobody's.
      const free = points - (refused.consumedPoints - want);
      if (free >= cost) return void (window.granted += free - cost);
      // A count of this node that answered meanwhile may have left points here.
      if (spend(key, cost)) return;
      // Past its points (work charged after the call may take it there): the agent's next calls pay, none from here.
      window.granted = 0;
      throw refusal(caller, refused.msBeforeNext, refusals.remember(key, sent + refused.msBeforeNext));
    } finally {
      if (known && ahead > 0) known.ahead = false;
    }
    refusals.forget(key);
    const window = windowOf(key, res.msBeforeNext);
    window.counted += 1;
    window.remaining = res.remainingPoints;
    window.granted += ahead;
  };
  /** A refusal this node remembers for `key` (remembered-refusals.ts): answered with no round trip, and not logged. */
  const remembered = (caller: Caller, key: string): PlanHubError | undefined => {
    const until = refusals.until(key);
    return until === undefined ? undefined : refusal(caller, until - Date.now(), false);
  };
  const consume = (caller: Caller, cost = 1, budget?: CallBudget): Promise<void> => {
    const key = keyOf(caller);
    if (spend(key, cost)) return RESOLVED;
    const refused = remembered(caller, key);
    return refused ? Promise.reject(refused) : count(caller, key, cost, budget);
  };
  return {
    consume,
    admit(caller, cost = 1, budget) {
      const key = keyOf(caller);
      if (spend(key, cost)) return { settled: RESOLVED, early: true };
      const refused = remembered(caller, key);
      if (refused) {
        const settled = Promise.reject(refused);
        settled.catch(() => undefined);
        return { settled, early: false };
      }
      const window = current(key);
      const early = window !== undefined && window.remaining - cost >= points / 2;
      // Calls admitted early before the count answers use up the estimate, so a burst cannot all go early.
      if (window) window.remaining -= cost;
      const settled = count(caller, key, cost, budget);
      settled.catch(() => undefined);
      return { settled, early };
    },
  };
};
