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
 * What one transport connection holds of the caps, as counts: its slots are all its address's, so which of them a
 * refusal or a departure gives back does not matter, only how many.
 */
interface TransportSlots {
  connects: number;
  /** Slots of CONNECTs not yet answered. */
  pending: Array<() => void>;
  /** Slots of connected sockets. */
  live: Array<() => void>;
  /** CONNECT_ERRORs still to come for CONNECTs refused here, before they took a slot. */
  unslotted: number;
  /** Whether the transport's packets are read for answers (only while some are awaited). */
  awaiting: boolean;
  /** Starts reading the transport's packets for the answers awaited. */
  listen: () => void;
}

type Packet = { type?: string; data?: unknown };

/**
 * socket.io's answer to a CONNECT to the main namespace as engine.io is handed it: a message packet starting with 0
 * (connected) or 4 (refused). Another namespace's answer names it after the type (`4/admin,{…}`): socket.io refuses a
 * CONNECT to a namespace this server does not have at once, before any step took a slot, so it gives none back.
 */
export const answerOf = (packet: Packet): 'connected' | 'refused' | undefined => {
  const data = packet.data;
  if (packet.type !== 'message' || typeof data !== 'string' || data[1] === '/') return undefined;
  return data.startsWith('0') ? 'connected' : data.startsWith('4') ? 'refused' : undefined;
};

/**
 * Handshake step before every other: caps per client address (client-address.ts: the balancer's client, not the
 * balancer) and per node, on top of the per-agent cap (which a client claiming fresh agent ids never reaches).
 * Counted on this node, a slot per socket: taken here, given back when a later step refuses the CONNECT (socket.io
 * then answers CONNECT_ERROR and leaves the transport open: a refused CONNECT used to keep its slot, and one
 * connection filled its address's cap with 1,000 forged ones), when the socket leaves, or when the transport closes.
 * It must run first: a refusal before it would answer a CONNECT_ERROR for a CONNECT that took no slot.
 */
export const capConnections = (caps: ConnectionCaps, deps: { refused: ThrottledLog; addressOf: ClientAddressOf }) => {
  const count = new KeyedCount();
  const transports = new WeakMap<object, TransportSlots>();
  const slotsOf = (conn: Socket['conn']): TransportSlots => {
    const known = transports.get(conn);
    if (known) return known;
    const slots: TransportSlots = {
      connects: 0,
      pending: [],
      live: [],
      unslotted: 0,
      awaiting: false,
      listen: () => undefined,
    };
    transports.set(conn, slots);
    // Listened to only while a CONNECT awaits its answer: every packet of a connection passes here, events included.
    const onPacket = (packet: Packet) => {
      const answer = answerOf(packet);
      if (answer === 'connected') {
        const slot = slots.pending.shift();
        if (slot) slots.live.push(slot);
      } else if (answer === 'refused') {
        if (slots.unslotted > 0) slots.unslotted -= 1;
        else slots.pending.shift()?.();
      }
      if (slots.pending.length === 0 && slots.unslotted === 0) {
        conn.off('packetCreate', onPacket);
        slots.awaiting = false;
      }
    };
    slots.listen = () => {
      if (slots.awaiting) return;
      slots.awaiting = true;
      conn.on('packetCreate', onPacket);
    };
    conn.once('close', () => {
      for (const release of [...slots.pending.splice(0), ...slots.live.splice(0)]) release();
    });
    return slots;
  };
  const refuse = (slots: TransportSlots, next: (err?: Error) => void, message: string) => {
    slots.unslotted += 1;
    slots.listen();
    next(handshakeRefusal('RESOURCE_EXHAUSTED', message));
  };
  return (socket: Socket, next: (err?: Error) => void): void => {
    const address = deps.addressOf(socket.request);
    const conn = socket.conn;
    // socket.io runs these steps a microtask after the CONNECT arrived; an EVENT sent right behind it (one polling
    // request, or one websocket read) closes the transport meanwhile, since no socket has joined the namespace yet.
    // Its 'close' has fired already, so a slot taken now would never come back: two requests per slot locked an
    // address out of the socket door for good. No answer can reach a closed transport; nothing is taken.
    if (conn.readyState !== 'open') {
      next(handshakeRefusal('UNAVAILABLE', 'The connection closed before it could be admitted; connect again.'));
      return;
    }
    const slots = slotsOf(conn);
    slots.connects += 1;
    if (slots.connects > CONNECTS_PER_TRANSPORT) {
      deps.refused(
        'warn',
        { address, connects: slots.connects },
        'connection refused: too many CONNECTs on one transport',
      );
      refuse(
        slots,
        next,
        `This transport connection sent ${slots.connects} CONNECT packets (limit ${CONNECTS_PER_TRANSPORT}) and is ` +
          'closed. Fix what the refusals said, then connect again.',
      );
      conn.close();
      return;
    }
    const held = count.held(address);
    if (held >= caps.perAddress || count.total >= caps.perNode) {
      const which = held >= caps.perAddress ? `${address} already holds ${held}` : `this node holds ${count.total}`;
      const limit = held >= caps.perAddress ? caps.perAddress : caps.perNode;
      deps.refused('warn', { address, held, total: count.total }, 'connection refused: address or node cap');
      refuse(
        slots,
        next,
        `Too many connections: ${which} (limit ${limit}). Close unused clients or reuse one connection.`,
      );
      return;
    }
    slots.pending.push(count.take(address));
    slots.listen();
    // A connected socket that leaves gives a slot back; its transport may stay open for another.
    socket.once('disconnect', () => slots.live.pop()?.());
    next();
  };
};
