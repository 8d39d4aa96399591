import type { Logger } from 'pino';
import type { Socket } from 'socket.io';
import { handshakeRefusal } from './handshake-refusal.ts';

export interface ConnectionCaps {
  /** Sockets one remote address may hold on this node, whatever agent ids they claim. */
  perAddress: number;
  /** Sockets this node holds in all. */
  perNode: number;
}

/**
 * Handshake step before authentication: caps per remote address and per node, on top of the per-agent cap (which a
 * client claiming fresh agent ids never reaches). Counted on this node; a slot is freed when the engine connection
 * closes, which also happens when a later step refuses the socket.
 */
export const capConnections = (caps: ConnectionCaps, log: Logger) => {
  const byAddress = new Map<string, number>();
  let total = 0;
  return (socket: Socket, next: (err?: Error) => void): void => {
    const address = socket.handshake.address;
    const held = byAddress.get(address) ?? 0;
    if (held >= caps.perAddress || total >= caps.perNode) {
      const which = held >= caps.perAddress ? `${address} already holds ${held}` : `this node holds ${total}`;
      const limit = held >= caps.perAddress ? caps.perAddress : caps.perNode;
      log.warn({ address, held, total }, 'connection refused: address or node cap');
      next(
        handshakeRefusal(
          'RESOURCE_EXHAUSTED',
          `Too many connections: ${which} (limit ${limit}). Close unused clients or reuse one connection.`,
        ),
      );
      return;
    }
    byAddress.set(address, held + 1);
    total++;
    socket.conn.once('close', () => {
      total--;
      const left = (byAddress.get(address) ?? 1) - 1;
      if (left > 0) byAddress.set(address, left);
      else byAddress.delete(address);
    });
    next();
  };
};
