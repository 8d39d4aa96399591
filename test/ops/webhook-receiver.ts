import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/**
 * A real HTTP receiver for webhook tests. `answer` decides each response; returning a promise holds the response
 * open until it resolves (a slow receiver).
 */
export const startReceiver = async (answer: (n: number) => number | Promise<number> = () => 200) => {
  const deliveries: Delivery[] = [];
  let requests = 0;
  const server = createServer((req, res) => {
    const n = requests++;
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      void Promise.resolve(answer(n)).then((status) => {
        deliveries.push({ headers: req.headers, body, status });
        res.writeHead(status).end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    get requests() {
      return requests;
    },
    /** Event ids of every accepted (2xx) delivery, in arrival order. */
    acceptedIds(): string[] {
      return deliveries
        .filter((d) => d.status < 300)
        .flatMap((d) => (JSON.parse(d.body) as { events: { event_id: string }[] }).events.map((e) => e.event_id));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
