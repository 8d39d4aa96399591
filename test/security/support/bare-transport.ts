import { Manager } from 'socket.io-client';
import { afterEach } from 'vitest';
import { startHarness, type Harness } from '../../helpers/servers.ts';

/**
 * Opens a transport connection (websocket) and never connects a socket on it, so it holds an engine slot and
 * nothing more: what the socket caps never see. Settles once the engine opens or fails; close `manager.engine`.
 */
export const bareTransport = (url: string) =>
  new Promise<{ manager: Manager; opened: boolean }>((resolve) => {
    const manager = new Manager(url, { transports: ['websocket'], reconnection: false, autoConnect: false });
    manager.open((err) => resolve({ manager, opened: err === undefined }));
  });

/**
 * A describe block's node (memory store) and the transports its tests open, all closed after each test. Call it in
 * the describe block.
 */
export const transportSuite = () => {
  let harness: Harness | undefined;
  const managers: Manager[] = [];
  afterEach(async () => {
    for (const m of managers.splice(0)) m.engine.close();
    await harness?.close();
    harness = undefined;
  });
  return {
    managers,
    start: async (config: Parameters<typeof startHarness>[1]) => (harness = await startHarness('memory', config)),
    /** A bare transport, closed after the test. */
    open: async (url: string) => {
      const opened = await bareTransport(url);
      managers.push(opened.manager);
      return opened;
    },
  };
};
