import type { Logger } from 'pino';
import type { Socket } from 'socket.io';
import { KeyedCount } from '../limits/keyed-count.ts';
import type { ClientAddressOf } from './client-address.ts';
import { handshakeRefusal } from './handshake-refusal.ts';

export interface ConnectionCaps {
  /** Sockets one client address may hold on this node, whatever agent ids they claim. */
  perAddress: number;
  /** Sockets this node holds in all. */
  perNode: number;
}

/**
 * Handshake step before authentication: caps per client address (client-address.ts: the balancer's client, not the
 * balancer) and per node, on top of the per-agent cap (which a client claiming fresh agent ids never reaches).
 * Counted on this node; a slot is freed when the engine connection closes, which also happens when a later step
 * refuses the socket.
 */
export const capConnections = (caps: ConnectionCaps, deps: { log: Logger; addressOf: ClientAddressOf }) => {
  const count = new KeyedCount();
  return (socket: Socket, next: (err?: Error) => void): void => {
    const address = deps.addressOf(socket.request);
    const held = count.held(address);
    if (held >= caps.perAddress || count.total >= caps.perNode) {
      const which = held >= caps.perAddress ? `${address} already holds ${held}` : `this node holds ${count.total}`;
      const limit = held >= caps.perAddress ? caps.perAddress : caps.perNode;
      deps.log.warn({ address, held, total: count.total }, 'connection refused: address or node cap');
      next(
        handshakeRefusal(
          'RESOURCE_EXHAUSTED',
          `Too many connections: ${which} (limit ${limit}). Close unused clients or reuse one connection.`,
        ),
      );
      return;
    }
    socket.conn.once('close', count.take(address));
    next();
  };
};
