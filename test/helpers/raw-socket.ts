import { io, type Socket } from 'socket.io-client';

/**
 * A bare socket.io connection in open mode, as a non-SDK client (another language, a hand-written host) would make:
 * no retries, no reconnection, so a test sees exactly what the node answered.
 */
export const rawSocket = (url: string, agentId: string, workspace = 'ws'): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const socket = io(url, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      auth: { workspace, agent_id: agentId },
    });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
