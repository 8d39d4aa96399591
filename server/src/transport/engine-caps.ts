import type { IncomingMessage } from 'node:http';
import type { Server } from 'socket.io';
import { KeyedCount } from '../limits/keyed-count.ts';
import type { ClientAddressOf } from './client-address.ts';
import type { ConnectionCaps } from './connection-caps.ts';
import { refuseEngineRequest } from './engine-refusal.ts';
import type { ThrottledLog } from '../throttled-log.ts';

/**
 * Engine connections (websocket or polling) per client address and per node may exceed the socket caps by this
 * factor: the socket caps answer a client that connects as it should with a structured refusal; this one stops a
 * client that opens transport connections and never connects a socket on them (each held until connectTimeout).
 */
const ENGINE_SLACK = 2;

/** A slot frees when one of the client's connections closes; a second is a fair wait before the next try. */
const RETRY_AFTER_SECONDS = 1;

/**
 * A new engine session, decided as engine.io decides it: its parsed query (one value per name, the last one given)
 * has no `sid` or an empty one. Later polling requests and the upgrade of a polling session carry one; `?sid=` or
 * `?sid=x&sid=` carry a parameter yet still open a session, so they must be counted. engine.io parses the query
 * before any middleware runs; the same parse here keeps the decision right should that order ever change.
 */
const isHandshake = (req: IncomingMessage & { _query?: Record<string, string> }) => {
  const query = req._query ?? Object.fromEntries(new URL(req.url ?? '/', 'http://engine').searchParams);
  return !query.sid;
};

/**
 * Counts engine.io connections from their handshake to their close and refuses a handshake past the caps before any
 * socket.io step runs: 429 past the address cap, 503 past the node's, both JSON RESOURCE_EXHAUSTED. An engine
 * middleware rather than allowRequest, whose refusal engine.io answers in its own shapes (engine-refusal.ts). The
 * socket caps (connection-caps.ts) only see clients that connect a socket.
 */
export const capEngineConnections = (
  io: Server,
  caps: ConnectionCaps,
  deps: { refused: ThrottledLog; addressOf: ClientAddressOf },
): void => {
  const perAddress = caps.perAddress * ENGINE_SLACK;
  const perNode = caps.perNode * ENGINE_SLACK;
  const count = new KeyedCount();
  io.engine.use((req: IncomingMessage, res: object, next: () => void) => {
    if (!isHandshake(req)) return next();
    const address = deps.addressOf(req);
    const held = count.held(address);
    if (held < perAddress && count.total < perNode) return next();
    deps.refused('warn', { address, held, total: count.total }, 'transport connection refused: address or node cap');
    const overAddress = held >= perAddress;
    refuseEngineRequest(req, res, {
      status: overAddress ? 429 : 503,
      code: 'RESOURCE_EXHAUSTED',
      message: overAddress
        ? `Too many transport connections from ${address}: it holds ${held} (limit ${perAddress}). ` +
          'Close unused clients or reuse one connection.'
        : `This node holds ${count.total} transport connections (limit ${perNode}); ` +
          'retry shortly or connect to another node.',
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    });
  });
  io.engine.on('connection', (raw: { request: IncomingMessage; once(event: 'close', fn: () => void): void }) => {
    raw.once('close', count.take(deps.addressOf(raw.request)));
  });
};
