import { io } from 'socket.io-client';

/**
 * The CPU attack, in its own process so its encoding work does not land on the measuring test's event loop:
 * `perSecond` calls per second, each a ~630 KB frame of 60,000 small keys, from one agent. A "start" line on stdin
 * starts the stream, "stop" pauses it. Prints "ready <frame bytes>" once connected, "answer <code>" per
 * acknowledgement and "paused <n>" once the n-th pause has no call left in flight.
 */
const [url = '', perSecond = '7', keys = '60000'] = process.argv.slice(2);
const extra: Record<string, number> = {};
for (let i = 0; i < Number(keys); i++) extra[`k${String(i).padStart(5, '0')}`] = 1;
const frame = { tool: 'createPlan', args: { title: 'noise', steps: ['x'], extra } };

let timer: NodeJS.Timeout | undefined;
let inFlight = 0;
let pauses = 0;
let pausing = false;
const settle = () => {
  if (pausing && inFlight === 0) {
    pausing = false;
    console.log(`paused ${pauses}`);
  }
};

const socket = io(url, {
  transports: ['websocket'],
  reconnection: false,
  auth: { workspace: 'noisy', agent_id: 'attacker', role: 'agent' },
});
socket.once('connect_error', (err) => {
  console.log(`connect_error ${err.message}`);
  process.exit(1);
});
socket.once('connect', () => console.log(`ready ${JSON.stringify(frame).length}`));

// Encoded once and written below socket.io as an event packet with an acknowledgement id, as an attacker would:
// the server sees the same frame each time while this process spends nothing re-encoding it.
const encoded = JSON.stringify(['call', frame]);
let nextId = 1_000_000;
socket.once('connect', () =>
  socket.io.engine.on('message', (data: unknown) => {
    const ack = typeof data === 'string' ? /^3(\d+)\[(.*)\]$/s.exec(data) : null;
    if (!ack || Number(ack[1]) < 1_000_000) return;
    const answer = JSON.parse(ack[2] ?? '{}') as { ok: boolean; error?: { code: string } };
    inFlight--;
    console.log(`answer ${answer.ok ? 'ok' : answer.error?.code}`);
    settle();
  }),
);
const send = () => {
  inFlight++;
  socket.io.engine.write(`2${nextId++}${encoded}`);
};
const start = () => {
  timer ??= setInterval(send, 1000 / Number(perSecond));
};
const stop = () => {
  clearInterval(timer);
  timer = undefined;
  pauses++;
  pausing = true;
  settle();
};

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  for (const line of chunk.split('\n')) {
    if (line.trim() === 'start') start();
    else if (line.trim() === 'stop') stop();
  }
});
process.once('SIGTERM', () => {
  socket.disconnect();
  process.exit(0);
});
