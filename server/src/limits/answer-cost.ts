import type { Caller } from '@planhub/shared';
import { chargeWork, type CallLimiter } from './call-limiter.ts';

/**
 * Answer bytes per unit of the caller's call budget: the rate a scan's parsing pays (scan-log.ts). A call costs its
 * frame, but a small frame can ask for a large answer: getPlanStatus of a 3.6 MB plan, or getWorkspace of a 29 MB
 * workspace, at a quarter of an agent's call rate held a node at 80–87 % CPU and another workspace's p99 went from
 * 15 ms to 214–381 ms. Charged like work past admission, once the answer is sent: the agent's next calls pay.
 */
export const ANSWER_BYTES_PER_UNIT = 64 * 1024;

/** What an answer of `bytes` costs: nothing below ANSWER_BYTES_PER_UNIT, which is nearly every answer. */
export const answerCost = (bytes: number): number => Math.floor(bytes / ANSWER_BYTES_PER_UNIT);

/**
 * Charges work already done (an answer sent, a commit applied): the agent's next calls pay. The work stands, so a
 * charge that fails (the limiter's store unreachable) is dropped: it has no call to fail, and must not become an
 * unhandled rejection.
 */
export const chargeDone = (limiter: CallLimiter, caller: Caller, units: number): void => {
  if (units > 0) chargeWork(limiter, caller, units).catch(() => undefined);
};

/** Charges an answer already sent, by its bytes. */
export const chargeAnswer = (limiter: CallLimiter, caller: Caller, bytes: number): void =>
  chargeDone(limiter, caller, answerCost(bytes));
