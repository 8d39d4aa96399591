import type { Caller, ErrorShape } from '@planhub/shared';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Limits } from '../config.ts';
import { FrameRefusal, frameSizeOf } from './frame-guard.ts';

/** Bytes one unit of call budget pays for: a call costs 1 plus one unit per this many bytes of its frame. */
export const COST_UNIT_BYTES = 16 * 1024;

export const callCost = (frameBytes: number): number => 1 + Math.floor(frameBytes / COST_UNIT_BYTES);

export interface CallAdmission {
  /** The cost of the call these arguments came with (1 for a small frame). */
  costOf(raw: unknown): number;
  /** An error to acknowledge instead of running the call, or undefined when it may go on to dispatch. */
  refuse(raw: unknown, caller: Caller, address: string): Promise<ErrorShape | undefined>;
  /** Charges a call of `cost` units that came another way (an MCP tools/call) to its address: the refusal, if any. */
  charge(cost: number, caller: Caller, address: string): Promise<ErrorShape | undefined>;
}

/**
 * What the transport settles before a call reaches dispatch: a frame refused by the parser is answered here, and
 * every call is charged by its size to its client address, so rotating agent ids (each with its own per-agent
 * budget) cannot exceed what one address may spend. Counted per node.
 */
export const createCallAdmission = (
  limits: Pick<Limits, 'callsPerAddressPerSecond' | 'rateWindowSeconds'>,
  log: Logger,
): CallAdmission => {
  const points = limits.callsPerAddressPerSecond * limits.rateWindowSeconds;
  const perAddress = new RateLimiterMemory({ points, duration: limits.rateWindowSeconds, keyPrefix: 'addr' });
  const costOf = (raw: unknown) => callCost(frameSizeOf(raw));
  const charge = async (cost: number, caller: Caller, address: string): Promise<ErrorShape | undefined> => {
    try {
      await perAddress.consume(address, cost);
      return undefined;
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      const retryAfterMs = Math.max(1, Math.ceil(res.msBeforeNext));
      if (res.consumedPoints - cost <= points)
        log.warn({ address, agent_id: caller.agent_id, limit: points }, 'address call budget exceeded');
      return {
        code: 'RESOURCE_EXHAUSTED',
        message:
          `Too many calls from ${address}: its clients may spend ${points} units per ` +
          `${limits.rateWindowSeconds} s together (a call costs 1 plus 1 per ${COST_UNIT_BYTES} bytes). ` +
          `Retry in ${retryAfterMs} ms.`,
        details: { retry_after_ms: retryAfterMs, limit: points, window_ms: limits.rateWindowSeconds * 1000 },
      };
    }
  };
  return {
    costOf,
    charge,
    async refuse(raw, caller, address) {
      const refused = await charge(costOf(raw), caller, address);
      if (refused) return refused;
      return raw instanceof FrameRefusal ? { code: raw.code, message: raw.message } : undefined;
    },
  };
};
