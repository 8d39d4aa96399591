import type { DataLoss, FormatConflict, Store } from '../store/store.ts';
import type { Route } from '../transport/http-routes.ts';
import { EVENTS_DOWN, isEventsDown } from '../store/events-down.ts';
import { settleBy } from './settle-by.ts';

export interface Readiness {
  draining: () => boolean;
  ping: () => Promise<void>;
  /**
   * `Redis` or `Redis Cluster`, for the reason a load balancer's operator reads. Never its address: /readyz answers
   * anyone who reaches the balancer, without a token; the logs name the (masked) URL.
   */
  storeName: string;
  /** When the store monitor first saw the current outage, if it has. */
  downSince: () => number | undefined;
  /** Why the store last failed (`WRONGPASS …`, `ECONNREFUSED`), without secrets or addresses. */
  reason?: () => string | undefined;
  /**
   * How long the store's answer is awaited. A balancer's check gives up after about 1 s: a slower answer would be read
   * as a dead node, never as the reason. Past it, a store that has not answered is not ready.
   */
  answerWithinMs?: number;
  /** Whether the store accepts writes (Redis at maxmemory with noeviction does not). */
  writeHealth: Store['writeHealth'];
  /** Set once the store was found wiped since this node started. */
  dataLoss: () => DataLoss | undefined;
  /** Set once the store was found written by a newer build (store/redis/stored-format.ts). */
  formatConflict?: () => FormatConflict | undefined;
}

/**
 * How long a probe waits for the store by default: under the 1 s after which HAProxy's check gives up, and far
 * enough above a ping's usual milliseconds that a busy machine's slow answer is not read as an outage.
 */
const ANSWER_WITHIN_MS = 700;

const json = (res: Parameters<Route>[1], status: number, body: object) =>
  void res
    .writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
    .end(`${JSON.stringify(body)}\n`);

/**
 * /readyz: 200 `{ "status": "ready" }`, or 503 with a machine-readable reason (`shutting_down`,
 * `store_unreachable`, `store_out_of_memory`, `store_data_lost`, `store_format_newer`, `store_events_down`) and a sentence for the person looking at the load balancer's health page.
 */
export const readinessRoute =
  (readiness: Readiness): Route =>
  async (_req, res) => {
    if (readiness.draining()) {
      json(res, 503, {
        status: 'unavailable',
        reason: 'shutting_down',
        message: 'This node is shutting down; the load balancer should send new connections elsewhere.',
      });
      return;
    }
    const waitMs = readiness.answerWithinMs ?? ANSWER_WITHIN_MS;
    const deadline = performance.now() + waitMs;
    const pinged = await settleBy(deadline, readiness.ping());
    // After the ping: it reads the store's epoch, so a wipe shows here on the first probe after it.
    const loss = readiness.dataLoss();
    if (loss) {
      json(res, 503, {
        status: 'unavailable',
        reason: 'store_data_lost',
        message: `${readiness.storeName} lost its data since this node started (wiped or restarted empty); calls answer DATA_LOSS until the node is restarted.`,
        since: new Date(loss.since).toISOString(),
      });
      return;
    }
    // After the ping too: it reads the format record, so a newer node's start shows on the first probe after it.
    const newer = readiness.formatConflict?.();
    if (newer) {
      json(res, 503, {
        status: 'unavailable',
        reason: 'store_format_newer',
        message: `${readiness.storeName} holds data written by a newer PlanHub than this node; it refuses every call until it is upgraded.`,
        since: new Date(newer.since).toISOString(),
      });
      return;
    }
    if ('failed' in pinged && isEventsDown(pinged.failed)) {
      json(res, 503, {
        status: 'unavailable',
        reason: EVENTS_DOWN,
        message:
          `${readiness.storeName} answers, but this node's event subscription to it is down: calls work, and events ` +
          "from other nodes reach this node's clients once it is back.",
      });
      return;
    }
    // What is left of the bound: a store that answered the ping slowly must not then hold the probe on writeHealth.
    const checked = 'done' in pinged ? await settleBy(deadline, readiness.writeHealth()) : undefined;
    if (checked && 'done' in checked) {
      const writes = checked.value;
      if (writes.ok) json(res, 200, { status: 'ready' });
      else
        json(res, 503, {
          status: 'unavailable',
          reason: 'store_out_of_memory',
          message: `${readiness.storeName} is out of memory and refuses writes; calls that write answer RESOURCE_EXHAUSTED until memory is freed or maxmemory raised.`,
          since: new Date(writes.since).toISOString(),
        });
      return;
    }
    const since = readiness.downSince();
    const late = 'late' in pinged || (checked !== undefined && 'late' in checked);
    const cause = readiness.reason?.() ?? (late ? `no answer within ${waitMs} ms` : undefined);
    json(res, 503, {
      status: 'unavailable',
      reason: 'store_unreachable',
      message: `${readiness.storeName} is unreachable${cause === undefined ? '' : ` (${cause})`}; calls answer UNAVAILABLE until it is back.`,
      ...(cause === undefined ? {} : { cause }),
      ...(since === undefined ? {} : { since: new Date(since).toISOString() }),
    });
  };

/** GET / leads to the dashboard, keeping the query (`/?workspace=team` opens that workspace). */
export const rootRoute: Route = (req, res) => {
  const params = new URL(req.url ?? '/', 'http://node').searchParams;
  // The dashboard takes its token only from the address's #fragment, which never reaches a server or its logs: a
  // token in the query is not repeated into a second request line.
  params.delete('token');
  const query = params.size > 0 ? `?${params.toString()}` : '';
  res.writeHead(302, { location: `/dashboard${query}`, 'content-type': 'text/plain' }).end('See /dashboard\n');
};
