import type { DisconnectReason } from '@planhub/shared';
import type { Socket } from 'socket.io';
import type { AddressShare, OutboundMember } from './address-outbound.ts';
import { slowConsumerReason, type AddressCut } from './slow-consumer.ts';

/** The parts of engine.io's transport this module reads: 'drain' comes when a write reached the kernel. */
interface EngineTransport {
  name: string;
  socket?: { bufferedAmount?: number; terminate?: () => void };
  on(event: 'drain', listener: () => void): unknown;
  removeListener(event: 'drain', listener: () => void): unknown;
}

/** The parts of engine.io's connection this module reads; engine.io does not type them all publicly. */
interface EngineConnection {
  writeBuffer: Array<{ data?: unknown }>;
  packetsFn?: unknown[];
  transport: EngineTransport;
  on(event: 'packetCreate', listener: (packet: { data?: unknown }) => void): unknown;
  on(event: 'flush' | 'close', listener: () => void): unknown;
  close(): unknown;
}

export interface OutboundGuard {
  /** Bytes waiting to reach the client: packets engine.io has not handed to the transport, plus the transport's own buffer. */
  queued(): number;
  /** The most ever queued on this connection (for tests and introspection). */
  readonly peak: number;
  /** Sends unless the connection is (or now becomes) over its limit; false once it was cut. */
  send(emit: () => void): boolean;
  /**
   * Sends a call's answer unless what is already queued is over the limit (then the connection is cut): a client
   * that keeps calling without reading the answers is stopped, while one large answer to a reading client is not.
   * Answers the bytes of the packets the answer became (0 when it was not sent), for the caller's budget.
   */
  answer(emit: () => void): number;
  /**
   * Undefined while at most a quarter of the limit is queued; otherwise a promise that resolves once the client has
   * read enough (or the connection was cut or closed). A sender of a burst (a replay) waits on it between events, so
   * the burst alone never passes the limit: the next event (at most half the limit) still fits.
   */
  drained(): Promise<void> | undefined;
}

const sizeOf = (data: unknown): number =>
  typeof data === 'string'
    ? data.length
    : data instanceof Uint8Array || data instanceof ArrayBuffer
      ? data.byteLength
      : 0;

/**
 * Bounds what one connection may have queued on this node. A client that stops reading (a stalled process, a full
 * network path) would otherwise make the node buffer every event pushed to it until the heartbeat notices, minutes
 * later. Past `maxBytes` the connection is cut: what is queued is dropped, the client is told why (if it ever reads
 * again) and the transport is destroyed after `graceMs`, so its buffers are freed. The client reconnects and resumes
 * from the last event it handled, so nothing is lost: the log still has the events.
 */
export const guardOutbound = (
  socket: Socket,
  options: {
    maxBytes: number;
    graceMs?: number;
    onCut: (reason: DisconnectReason) => void;
    /** Counts this connection in its address's total (address-outbound.ts), which may cut it. */
    join?: (member: OutboundMember) => AddressShare;
  },
): OutboundGuard => {
  const conn = socket.conn as unknown as EngineConnection;
  let pending = 0;
  /** Every packet's bytes since the connection opened: an emit's own are the difference across it. */
  let created = 0;
  let peak = 0;
  let cut = false;
  let closed = false;
  conn.on('packetCreate', (packet) => {
    const bytes = sizeOf(packet.data);
    pending += bytes;
    created += bytes;
  });
  conn.on('flush', () => (pending = 0));
  const queued = () => pending + (conn.transport.socket?.bufferedAmount ?? 0);
  const lowWater = options.maxBytes / 4;
  let waiting: { promise: Promise<void>; release: () => void } | undefined;
  const release = () => waiting?.release();
  conn.on('close', () => {
    closed = true;
    release();
    share?.leave();
  });
  // A socket may leave while its connection stays open (a namespace disconnect): it no longer counts then.
  socket.on('disconnect', () => share?.leave());

  const cutNow = (bytes: number, address?: AddressCut) => {
    cut = true;
    release();
    share?.leave();
    // Packets not yet handed to the transport are plain heap: dropped at once (the client resumes from the log).
    conn.writeBuffer.length = 0;
    if (conn.packetsFn) conn.packetsFn.length = 0;
    pending = 0;
    const reason = slowConsumerReason({
      closed: 'This connection',
      unread: "its events (or its calls' answers)",
      queuedBytes: bytes,
      limitBytes: options.maxBytes,
      address,
      recover:
        'Reconnect and resubscribe with the last event id you handled; the events you missed are replayed from the log.',
    });
    options.onCut(reason);
    socket.emit('disconnect_reason', reason);
    socket.disconnect(true);
    // A client that never reads would hold the transport's buffer until the heartbeat gives up: destroy it.
    const timer = setTimeout(() => {
      conn.transport.socket?.terminate?.();
      conn.writeBuffer.length = 0;
      conn.close();
    }, options.graceMs ?? 5000);
    timer.unref();
    conn.on('close', () => clearTimeout(timer));
  };

  const share: AddressShare | undefined = options.join?.({
    queued,
    cutForAddress: (bytes, limit) => {
      if (!cut && !closed) cutNow(queued(), { bytes, limit });
    },
  });

  return {
    queued,
    get peak() {
      return peak;
    },
    send(emit) {
      if (cut) return false;
      emit();
      const bytes = queued();
      peak = Math.max(peak, bytes);
      if (bytes > options.maxBytes) cutNow(bytes);
      else share?.grew();
      return !cut;
    },
    answer(emit) {
      if (cut) return 0;
      const before = queued();
      if (before > options.maxBytes) {
        cutNow(before);
        return 0;
      }
      const start = created;
      emit();
      peak = Math.max(peak, queued());
      share?.grew();
      return created - start;
    },
    drained() {
      if (cut || closed || queued() <= lowWater) return undefined;
      if (!waiting) {
        const transport = conn.transport;
        let resolve: () => void = () => {};
        const promise = new Promise<void>((r) => (resolve = r));
        const onDrain = () => {
          if (queued() <= lowWater) release();
        };
        transport.on('drain', onDrain);
        waiting = {
          promise,
          release: () => {
            transport.removeListener('drain', onDrain);
            waiting = undefined;
            resolve();
          },
        };
      }
      return waiting.promise;
    },
  };
};
