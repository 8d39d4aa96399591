import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { Server } from 'socket.io';
import type { ConnectionCaps } from './connection-caps.ts';

/**
 * Engine connections (websocket or polling) per remote address and per node may exceed the socket caps by this
 * factor: the socket caps answer a client that connects as it should with a structured refusal; this one stops a
 * client that opens transport connections and never connects a socket on them (each held until connectTimeout).
 */
const ENGINE_SLACK = 2;

/**
 * Counts engine.io connections from their handshake to their close and refuses a handshake past the caps (HTTP 403,
 * before any socket.io step runs). The socket caps (connection-caps.ts) only see clients that connect a socket.
 */
export const capEngineConnections = (io: Server, caps: ConnectionCaps, log: Logger): void => {
  const perAddress = caps.perAddress * ENGINE_SLACK;
  const perNode = caps.perNode * ENGINE_SLACK;
  const byAddress = new Map<string, number>();
  let total = 0;
  const addressOf = (req: IncomingMessage) => req.socket.remoteAddress ?? '';
  io.engine.opts.allowRequest = (req, callback) => {
    const address = addressOf(req);
    const held = byAddress.get(address) ?? 0;
    if (held < perAddress && total < perNode) return callback(null, true);
    log.warn({ address, held, total }, 'transport connection refused: address or node cap');
    callback(`Too many connections from ${address} (limit ${perAddress}); close unused ones.`, false);
  };
  io.engine.on('connection', (raw: { request: IncomingMessage; once(event: 'close', fn: () => void): void }) => {
    const address = addressOf(raw.request);
    byAddress.set(address, (byAddress.get(address) ?? 0) + 1);
    total++;
    raw.once('close', () => {
      total--;
      const left = (byAddress.get(address) ?? 1) - 1;
      if (left > 0) byAddress.set(address, left);
      else byAddress.delete(address);
    });
  });
};
