import { io } from 'socket.io-client';

/**
 * The CPU attack, in its own process so its encoding work does not land on the measuring test's event loop:
 * `perSecond` calls per second, each a ~660 KB frame of 60,000 small keys, from one agent. A "start" line on stdin
 * starts the stream, "stop" pauses it. Prints "ready <frame bytes>" once connected, "answer <code> <message>" per
 * acknowledgement, "loud <n>" at the first answer after the n-th start (the node is busy with the frames from then on)
 * and "paused <n>" once the n-th pause has no call left in flight. Driven by cpu-attack-driver.ts.
 */
const [url = '', perSecond = '7', keys = '60000'] = process.argv.slice(2);
const extra: Record<string, number> = {};
for (let i = 0; i < Number(keys); i++) extra[`k${String(i).padStart(5, '0')}`] = 1;
const frame = { tool: 'createPlan', args: { title: 'noise', steps: ['x'], extra } };

let timer: NodeJS.Timeout | undefined;
let inFlight = 0;
let pauses = 0;
let pausing = false;
let starts = 0;
let loudAnnounced = true;
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
// A node that cut the connection (or died) answers nothing more: exiting lets the driver's wait fail at once.
socket.on('disconnect', (reason) => {
  if (reason === 'io client disconnect') return;
  console.log(`disconnected ${reason}`);
  process.exit(1);
});

// Encoded once and written below socket.io as an event packet with an acknowledgement id, as an attacker would:
// the server sees the same frame each time while this process spends nothing re-encoding it.
const encoded = JSON.stringify(['call', frame]);
let nextId = 1_000_000;
socket.once('connect', () =>
  socket.io.engine.on('message', (data: unknown) => {
    const ack = typeof data === 'string' ? /^3(\d+)\[(.*)\]$/s.exec(data) : null;
    if (!ack || Number(ack[1]) < 1_000_000) return;
    const answer = JSON.parse(ack[2] ?? '{}') as { ok: boolean; error?: { code: string; message: string } };
    inFlight--;
    console.log(`answer ${answer.ok ? 'ok' : `${answer.error?.code} ${answer.error?.message.replace(/\s+/g, ' ')}`}`);
    if (!loudAnnounced) {
      loudAnnounced = true;
      console.log(`loud ${starts}`);
    }
    settle();
  }),
);
const send = () => {
  inFlight++;
  socket.io.engine.write(`2${nextId++}${encoded}`);
};
const start = () => {
  if (timer) return;
  starts++;
  loudAnnounced = false;
  timer = setInterval(send, 1000 / Number(perSecond));
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
// Whoever drives the attack holds stdin: if it goes away without stopping this process (a bench interrupted, a test
// worker killed), the frames must not keep coming.
process.stdin.once('end', () => process.exit(0));
process.once('SIGTERM', () => {
  socket.disconnect();
  process.exit(0);
});
