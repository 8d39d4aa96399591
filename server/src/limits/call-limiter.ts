import { type CallBudget, withinBudget } from '../store/call-budget.ts';
import type { Caller } from '@planhub/shared';
import { PlanHubError } from '@planhub/shared';
import type { Logger } from 'pino';
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Limits } from '../config.ts';
import type { LimitBackend } from '../store/limits/limit-backend.ts';
import { createMemoryLimits } from '../store/limits/memory-limits.ts';

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
 * so a refused call answers the refusal). An agent nearer its limit, or not seen in this window, waits first, so
 * a flooding agent's refused calls cost one counter round trip each, as before.
 */
export interface Admission {
  settled: Promise<void>;
  early: boolean;
}

/** The last count seen per agent on this node: what `early` is decided on (never what admits a call). */
interface Estimate {
  remaining: number;
  /** When the window of that count ends (epoch ms). */
  until: number;
}

const MAX_ESTIMATES = 10_000;

export interface CallLimiterOptions {
  limits: Pick<Limits, 'callsPerSecond' | 'rateWindowSeconds'>;
  /** Where the counts live (the store's limit backend); one node's memory when omitted. */
  backend?: LimitBackend;
  /** Told once per agent and window (the first refusal), so a flooding client cannot flood the log too. */
  log?: Logger;
}

/** A refusal by the call budget (dispatch logs these at debug: the limiter already warned once per window). */
export const isRateLimited = (error: PlanHubError): boolean =>
  error.code === 'RESOURCE_EXHAUSTED' &&
  typeof (error.details as { retry_after_ms?: unknown } | undefined)?.retry_after_ms === 'number';

/**
 * A fixed window of `callsPerSecond × rateWindowSeconds` calls per agent (workspace + agent_id). On Redis the count
 * is one key per agent shared by every node (see the store's limit backend).
 */
export const createCallLimiter = (options: CallLimiterOptions): CallLimiter => {
  const duration = options.limits.rateWindowSeconds;
  const points = options.limits.callsPerSecond * duration;
  const limiter = (options.backend ?? createMemoryLimits()).rateLimiter({ points, duration });
  const estimates = new Map<string, Estimate>();
  const remember = (key: string, res: RateLimiterRes) => {
    if (estimates.size >= MAX_ESTIMATES && !estimates.has(key)) estimates.clear();
    estimates.set(key, { remaining: res.remainingPoints, until: Date.now() + res.msBeforeNext });
  };
  const consume = async (caller: Caller, cost = 1, budget?: CallBudget): Promise<void> => {
    const key = `${caller.workspace}\u0000${caller.agent_id}`;
    try {
      // On Redis, a round trip like the store's: it shares the call's one deadline.
      remember(key, await withinBudget(budget, () => limiter.consume(key, cost)));
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      remember(key, res);
      const retryAfterMs = Math.max(1, Math.ceil(res.msBeforeNext));
      if (res.consumedPoints > points && res.consumedPoints - cost <= points)
        options.log?.warn(
          { agent_id: caller.agent_id, workspace: caller.workspace, limit: points, window_s: duration },
          'call budget exceeded; further refusals in this window are logged at debug',
        );
      throw new PlanHubError(
        'RESOURCE_EXHAUSTED',
        `Too many calls: agent ${caller.agent_id} may make ${points} calls per ${duration} s. ` +
          `Retry in ${retryAfterMs} ms, and wait for events instead of polling.`,
        { retry_after_ms: retryAfterMs, limit: points, window_ms: duration * 1000 },
      );
    }
  };
  return {
    consume,
    admit(caller, cost = 1, budget) {
      const estimate = estimates.get(`${caller.workspace}\u0000${caller.agent_id}`);
      const early = estimate !== undefined && Date.now() < estimate.until && estimate.remaining - cost >= points / 2;
      // Calls admitted early before the count answers use up the estimate, so a burst cannot all go early.
      if (estimate) estimate.remaining -= cost;
      const settled = consume(caller, cost, budget);
      settled.catch(() => undefined);
      return { settled, early };
    },
  };
};
