import type { Caller } from '@planhub/shared';
import type { Server } from 'socket.io';

export interface PresenceHooks {
  connected(caller: Caller): void;
  disconnected(caller: Caller): void;
}

/** Tells presence about every admitted socket and its end; the presence module itself never sees socket.io. */
export const watchPresence = (io: Server, presence: PresenceHooks): void => {
  io.on('connection', (socket) => {
    const caller = (socket.data as { caller: Caller }).caller;
    presence.connected(caller);
    socket.once('disconnect', () => presence.disconnected(caller));
  });
};
