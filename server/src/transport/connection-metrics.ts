import type { Server } from 'socket.io';

/** Counts open connections by role for /metrics. */
export const countConnections = (io: Server, onChange: (role: string, delta: 1 | -1) => void): void => {
  io.on('connection', (socket) => {
    const role = (socket.data as { caller?: { role?: string } } | undefined)?.caller?.role ?? 'unknown';
    onChange(role, 1);
    socket.once('disconnect', () => onChange(role, -1));
  });
};
