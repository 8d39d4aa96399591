import type { Logger } from 'pino';

/** Redis' refusal of a write at `maxmemory` with `noeviction` ("OOM command not allowed when used memory > …"). */
export const isOutOfMemory = (err: unknown): boolean => err instanceof Error && /^OOM\b/.test(err.message);

/** Out of memory lasts until Redis uses less than this share of maxmemory (or maxmemory is lifted). */
const HEADROOM = 0.9;

const infoField = (info: string, name: string): number | undefined => {
  const match = new RegExp(`^${name}:(\\d+)`, 'm').exec(info);
  return match ? Number(match[1]) : undefined;
};

/**
 * Whether Redis is refusing writes for lack of memory, as this node last saw it: set by a refused command or by
 * `INFO memory` at maxmemory, cleared when `INFO memory` shows room again (below 90% of maxmemory, or no maxmemory),
 * both read when readiness asks. Logged at error once when it begins, then at
 * most once per `logEveryMs` with how many refusals were not logged, so a node under load logs a few lines, not one
 * per call.
 */
export const createOutOfMemoryState = (log: Logger, options: { logEveryMs?: number; now?: () => number } = {}) => {
  const logEveryMs = options.logEveryMs ?? 10_000;
  const now = options.now ?? Date.now;
  let since: number | undefined;
  let lastLog = 0;
  let unlogged = 0;
  const refused = (op: string): void => {
    const at = now();
    since ??= at;
    if (at - lastLog < logEveryMs) {
      unlogged += 1;
      return;
    }
    log.error(
      { op, refusals_not_logged: unlogged, since: new Date(since).toISOString() },
      'Redis is out of memory and refuses writes (maxmemory reached with noeviction): calls that write answer ' +
        'RESOURCE_EXHAUSTED and /readyz answers 503 until memory is freed or maxmemory raised',
    );
    lastLog = at;
    unlogged = 0;
  };
  return {
    refused,
    /**
     * Reads `INFO memory`: a Redis at its maxmemory with noeviction begins the state before any write of this node
     * was refused (so every node a balancer probes turns unready at once, not only those whose calls wrote); room
     * again ends it.
     */
    check(info: string): void {
      const used = infoField(info, 'used_memory');
      const max = infoField(info, 'maxmemory');
      if (used === undefined || max === undefined) return;
      if (since === undefined) {
        if (max !== 0 && used >= max && /^maxmemory_policy:noeviction\r?$/m.test(info)) refused('INFO memory');
        return;
      }
      if (max !== 0 && used >= max * HEADROOM) return;
      log.info({ out_of_memory_s: Math.round((now() - since) / 1000) }, 'Redis accepts writes again');
      since = undefined;
      lastLog = 0;
    },
    since: (): number | undefined => since,
  };
};
