import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket } from 'socket.io';

export interface Call {
  tool: string;
  args: Record<string, unknown>;
  request_id?: string;
}
export type Ack = (answer: unknown) => void;

/**
 * A real socket.io server playing a node whose answers the test scripts (late, UNAVAILABLE, a dropped connection, an
 * event no PlanHub node sends), so the SDK's paths run deterministically. PlanHub itself is exercised in
 * test/multinode.
 */
export const scriptedNode = async (onCall: (call: Call, ack: Ack, socket: Socket) => void) => {
  const http: HttpServer = createHttpServer();
  const io = new Server(http);
  const calls: Call[] = [];
  io.on('connection', (socket) => {
    socket.on('call', (call: Call, ack: Ack) => {
      calls.push(call);
      onCall(call, ack, socket);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return { url, calls, io, close: () => io.close() };
};
