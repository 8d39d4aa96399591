import type { Socket } from 'socket.io';
import { KeyedCount } from '../limits/keyed-count.ts';
import type { ClientAddressOf } from './client-address.ts';
import { handshakeRefusal } from './handshake-refusal.ts';
import type { ThrottledLog } from '../throttled-log.ts';

export interface ConnectionCaps {
  /** Sockets one client address may hold on this node, whatever agent ids they claim. */
  perAddress: number;
  /** Sockets this node holds in all. */
  perNode: number;
}

/**
 * CONNECT packets one transport connection may send. A client connects once per transport connection, and again
 * after a refusal at most a few times; one that keeps sending them is closed, so it pays for a new transport
 * connection (which the engine caps count) instead of being refused at no cost, as often as it likes.
 */
const CONNECTS_PER_TRANSPORT = 8;

/**
 * Handshake step before authentication: caps per client address (client-address.ts: the balancer's client, not the
 * balancer) and per node, on top of the per-agent cap (which a client claiming fresh agent ids never reaches).
 * Counted on this node, one slot per transport connection, freed when it closes: a CONNECT that a later step refuses
 * leaves the connection open, so counting every CONNECT let one connection fill its address's cap with refused ones.
 */
export const capConnections = (caps: ConnectionCaps, deps: { refused: ThrottledLog; addressOf: ClientAddressOf }) => {
  const count = new KeyedCount();
  const connects = new WeakMap<object, number>();
  const holding = new WeakSet<object>();
  return (socket: Socket, next: (err?: Error) => void): void => {
    const address = deps.addressOf(socket.request);
    const conn = socket.conn;
    const tries = (connects.get(conn) ?? 0) + 1;
    connects.set(conn, tries);
    if (tries > CONNECTS_PER_TRANSPORT) {
      deps.refused('warn', { address, connects: tries }, 'connection refused: too many CONNECTs on one transport');
      next(
        handshakeRefusal(
          'RESOURCE_EXHAUSTED',
          `This transport connection sent ${tries} CONNECT packets (limit ${CONNECTS_PER_TRANSPORT}) and is closed. ` +
            'Fix what the refusals said, then connect again.',
        ),
      );
      conn.close();
      return;
    }
    // Already holding its slot: an earlier CONNECT on it took it.
    if (holding.has(conn)) return next();
    const held = count.held(address);
    if (held >= caps.perAddress || count.total >= caps.perNode) {
      const which = held >= caps.perAddress ? `${address} already holds ${held}` : `this node holds ${count.total}`;
      const limit = held >= caps.perAddress ? caps.perAddress : caps.perNode;
      deps.refused('warn', { address, held, total: count.total }, 'connection refused: address or node cap');
      next(
        handshakeRefusal(
          'RESOURCE_EXHAUSTED',
          `Too many connections: ${which} (limit ${limit}). Close unused clients or reuse one connection.`,
        ),
      );
      return;
    }
    holding.add(conn);
    conn.once('close', count.take(address));
    next();
  };
};
