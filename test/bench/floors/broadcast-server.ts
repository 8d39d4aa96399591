/**
 * The cross-node floor of docs/invariants.md, performance targets: a bare socket.io server with @socket.io/redis-adapter (classic pub/sub).
 * The bench runs two of these on one Redis; a client of node A emits "pub" and the server broadcasts it, so a client
 * of node B receives it through Redis — the least any cross-node event delivery can cost.
 */
import { createServer } from 'node:http';
import { createAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';
import { Server } from 'socket.io';

const port = Number(process.env.PORT);
const url = process.env.REDIS_URL;
if (!url) throw new Error('the broadcast floor needs REDIS_URL');

const pub = new Redis(url);
const sub = pub.duplicate();
for (const client of [pub, sub]) client.on('error', (err: Error) => console.error('redis error', err.message));

const http = createServer((req, res) => {
  if (req.url === '/healthz') res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
});
const io = new Server(http, { maxHttpBufferSize: 1024 * 1024, serveClient: false, cors: { origin: false } });
io.adapter(createAdapter(pub, sub, { key: 'floor-broadcast' }));

io.on('connection', (socket) => {
  socket.on('pub', (payload: unknown) => {
    socket.broadcast.emit('msg', payload);
  });
});

http.listen(port, '127.0.0.1');
const stop = () => {
  void io.close();
  pub.disconnect();
  sub.disconnect();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
