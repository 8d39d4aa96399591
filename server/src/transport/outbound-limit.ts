import type { Socket } from 'socket.io';

/** What a cut connection is told (if it ever reads again) before it closes: the `disconnect_reason` event. */
export interface DisconnectReason {
  code: 'RESOURCE_EXHAUSTED';
  reason: 'slow_consumer';
  message: string;
  /** Bytes queued for the connection when it was cut, and the limit it passed. */
  queued_bytes: number;
  limit_bytes: number;
}

/** The parts of engine.io's connection this module reads; engine.io does not type them all publicly. */
interface EngineConnection {
  writeBuffer: Array<{ data?: unknown }>;
  packetsFn?: unknown[];
  transport: { name: string; socket?: { bufferedAmount?: number; terminate?: () => void } };
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
  options: { maxBytes: number; graceMs?: number; onCut: (reason: DisconnectReason) => void },
): OutboundGuard => {
  const conn = socket.conn as unknown as EngineConnection;
  let pending = 0;
  let peak = 0;
  let cut = false;
  conn.on('packetCreate', (packet) => (pending += sizeOf(packet.data)));
  conn.on('flush', () => (pending = 0));
  const queued = () => pending + (conn.transport.socket?.bufferedAmount ?? 0);

  const cutNow = (bytes: number) => {
    cut = true;
    // Packets not yet handed to the transport are plain heap: dropped at once (the client resumes from the log).
    conn.writeBuffer.length = 0;
    if (conn.packetsFn) conn.packetsFn.length = 0;
    pending = 0;
    const reason: DisconnectReason = {
      code: 'RESOURCE_EXHAUSTED',
      reason: 'slow_consumer',
      message:
        `This connection was closed because it did not read its events: ${bytes} bytes were queued for it, past ` +
        `the limit of ${options.maxBytes} (outboundBytes). Reconnect and resubscribe with the last event id you ` +
        'handled; the events you missed are replayed from the log.',
      queued_bytes: bytes,
      limit_bytes: options.maxBytes,
    };
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
      return !cut;
    },
  };
};
