import { createServer } from 'node:net';

/** A port that was free a moment ago on 127.0.0.1 (the caller binds it next; a rare clash surfaces as a bind error). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
