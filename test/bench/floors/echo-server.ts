/**
 * The single-node floors of docs/invariants.md, performance targets, run as their own process by the bench (PORT, FLOOR_MODE, REDIS_URL):
 * - `echo`: a bare socket.io server acknowledging every "call" with its own arguments;
 * - `redis`: the same plus exactly one Redis round trip per call — one Lua script that writes a hash field, appends
 *   to a stream (trimmed like an event log) and publishes — the least any store-backed call with events must do.
 * Same socket.io options as PlanHub's transport, so the difference measured is PlanHub's own work.
 */
import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import { Server } from 'socket.io';

const WRITE_LUA = `
-- KEYS[1] hash, KEYS[2] stream; ARGV[1] field, ARGV[2] value, ARGV[3] channel, ARGV[4] stream length kept
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', 'e', ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[2])
return id
`;

type RedisWithFloor = Redis & {
  floorWrite(
    hash: string,
    stream: string,
    field: string,
    value: string,
    channel: string,
    keep: number,
  ): Promise<string>;
};

const port = Number(process.env.PORT);
const mode = process.env.FLOOR_MODE === 'redis' ? 'redis' : 'echo';
let redis: RedisWithFloor | undefined;
let sub: Redis | undefined;
if (mode === 'redis') {
  const url = process.env.REDIS_URL;
  if (!url) throw new Error('FLOOR_MODE=redis needs REDIS_URL');
  redis = new Redis(url) as RedisWithFloor;
  redis.defineCommand('floorWrite', { numberOfKeys: 2, lua: WRITE_LUA });
  // PlanHub's nodes subscribe to their own events; the floor pays for one subscriber too.
  sub = redis.duplicate();
  for (const client of [redis, sub]) client.on('error', (err: Error) => console.error('redis error', err.message));
  await sub.subscribe('floor:{bench}:events');
  sub.on('message', () => {});
}

const http = createServer((req, res) => {
  if (req.url === '/healthz') res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
});
const io = new Server(http, { maxHttpBufferSize: 1024 * 1024, serveClient: false, cors: { origin: false } });

io.on('connection', (socket) => {
  socket.on('call', (raw: { args?: Record<string, unknown> }, ack: unknown) => {
    if (typeof ack !== 'function') return;
    const reply = ack as (answer: unknown) => void;
    if (!redis) {
      reply({ ok: true, result: raw.args ?? {} });
      return;
    }
    const value = JSON.stringify({ at: new Date().toISOString(), socket: socket.id, args: raw.args ?? {} });
    redis.floorWrite('floor:{bench}:state', 'floor:{bench}:log', socket.id, value, 'floor:{bench}:events', 10_000).then(
      (id) => reply({ ok: true, result: { event_id: id, ...raw.args } }),
      (err: Error) => reply({ ok: false, error: { code: 'UNAVAILABLE', message: err.message } }),
    );
  });
});

http.listen(port, '127.0.0.1');
const stop = () => {
  void io.close();
  redis?.disconnect();
  sub?.disconnect();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
