import type { Socket } from 'socket.io';

/**
 * How long a connection that sent calls past its in-flight bound goes unread. While it is unread, what it sends waits
 * in its TCP buffers, which pushes back on the client. A pong waits no longer than this, far below the heartbeat's
 * 10 s.
 */
const READ_PAUSE_MS = 250;

/** What engine.io's websocket transport wraps: a `ws` WebSocket, which can stop reading its TCP socket. */
interface Pausable {
  pause(): void;
  resume(): void;
}

const pausableOf = (socket: Socket): Pausable | undefined => {
  const ws = (socket.conn.transport as { socket?: Partial<Pausable> } | undefined)?.socket;
  return typeof ws?.pause === 'function' && typeof ws.resume === 'function' ? (ws as Pausable) : undefined;
};

/**
 * Stops reading a socket's websocket for READ_PAUSE_MS. Answering every call past the bound was cheap, but not free:
 * four sockets sending 70,000 small frames a second each kept a node's one thread decoding and refusing them, and
 * /readyz went unanswered for 6 s. Frames already read are still handled, and refused.
 *
 * HTTP long-polling has no such pause. Its client sends one POST at a time and waits for each answer, and a POST
 * carries at most `payloadBytes`.
 */
export const pauseReading = (socket: Socket): (() => void) => {
  // The transport paused, resumed itself: an upgrade may have replaced the connection's transport meanwhile.
  let paused: Pausable | undefined;
  let timer: NodeJS.Timeout | undefined;
  const resume = () => {
    clearTimeout(timer);
    paused?.resume();
    paused = timer = undefined;
  };
  socket.once('disconnect', resume);
  return () => {
    if (paused !== undefined) return;
    paused = pausableOf(socket);
    if (paused === undefined) return;
    paused.pause();
    timer = setTimeout(resume, READ_PAUSE_MS);
  };
};
