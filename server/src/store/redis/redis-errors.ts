import { PlanHubError } from '@planhub/shared';
import type { Logger } from 'pino';
import { isOutOfMemory } from './out-of-memory.ts';

/** Replies that mean "Redis cannot serve this right now" (loading, failover, out of memory), not "this is wrong". */
const TRANSIENT_REPLY = /^(LOADING|READONLY|BUSY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|OOM|NOREPLICAS|MOVED|ASK)\b/;

/**
 * The one place a Redis failure becomes a PlanHub error. Clients never see Redis' own text: an outage answers
 * UNAVAILABLE (safe to retry with the same request_id), and an error reply that no retry can fix (a script bug,
 * a key of the wrong type) answers INTERNAL and is logged as a server fault.
 */
export const storeFailure = (err: unknown, log: Logger, op: string): PlanHubError => {
  if (err instanceof PlanHubError) return err;
  if (isOutOfMemory(err)) return outOfMemory();
  // ioredis types its ReplyError as `any`; its name identifies it. Unparsable stored JSON is a bug, not an outage.
  const permanent =
    (err instanceof Error && err.name === 'ReplyError' && !TRANSIENT_REPLY.test(err.message)) ||
    err instanceof SyntaxError;
  if (permanent) {
    log.error({ err, op }, 'store command failed (a bug or corrupt data, not an outage)');
    return new PlanHubError('INTERNAL', 'Internal error in the PlanHub store; the failure was logged.');
  }
  // debug: outages are reported once per change of state by the node's store monitor, not once per call.
  log.debug({ op, reason: err instanceof Error ? err.message : String(err) }, 'Redis unreachable');
  return unavailable();
};

/** Not UNAVAILABLE: retrying at once cannot help, an operator has to free memory or raise maxmemory. */
export const outOfMemory = () =>
  new PlanHubError(
    'RESOURCE_EXHAUSTED',
    'The store is out of memory; Redis refuses writes until an operator frees memory or raises maxmemory. ' +
      'Reads still work; retry this call later with the same request_id.',
    { kind: 'store_out_of_memory' },
  );

export const unavailable = () =>
  new PlanHubError(
    'UNAVAILABLE',
    'The store is unreachable right now (Redis is down or restarting); retry the call in a few seconds.',
  );
