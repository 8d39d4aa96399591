import { Manager } from 'socket.io-client';

/**
 * Opens a transport connection (websocket) and never connects a socket on it, so it holds an engine slot and
 * nothing more: what the socket caps never see. Settles once the engine opens or fails; close `manager.engine`.
 */
export const bareTransport = (url: string) =>
  new Promise<{ manager: Manager; opened: boolean }>((resolve) => {
    const manager = new Manager(url, { transports: ['websocket'], reconnection: false, autoConnect: false });
    manager.open((err) => resolve({ manager, opened: err === undefined }));
  });
