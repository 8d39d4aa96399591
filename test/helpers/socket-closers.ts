import type { Server, Socket } from 'node:net';

/** How a test's TCP proxy ends what it holds: `sockets` are every connection it opened, both sides. */
export const socketClosers = (server: Server, sockets: ReadonlySet<Socket>) => ({
  /** Drops every connection now, as a network path that fails does; new ones are routed as before. */
  cut: () => {
    for (const s of sockets) s.destroy();
  },
  close: () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
});
