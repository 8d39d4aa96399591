import type { Logger } from 'pino';

/** A log line: its level, fields and message (the message names the kind, and is the throttle's key). */
export type ThrottledLog = (level: 'warn' | 'info', fields: Record<string, unknown>, message: string) => void;

/**
 * Logs lines of one kind (one message) at most once per `intervalMs`, with how many went unlogged since. A client
 * that repeats a refused request as fast as it can (100,000 refused handshakes in 6.6 s on one connection), or a
 * failure that recurs on every heartbeat of an outage, must not turn the node's log into a flood that buries
 * everything else; the metrics still count each refusal.
 */
export const throttledLog = (log: Logger, intervalMs = 1000): ThrottledLog => {
  const last = new Map<string, { at: number; unlogged: number }>();
  return (level, fields, message) => {
    const now = performance.now();
    const seen = last.get(message);
    if (seen !== undefined && now - seen.at < intervalMs) {
      seen.unlogged += 1;
      return;
    }
    log[level]({ ...fields, ...(seen && seen.unlogged > 0 ? { unlogged_since: seen.unlogged } : {}) }, message);
    last.set(message, { at: now, unlogged: 0 });
  };
};
