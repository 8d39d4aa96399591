/**
 * The crowded workspace's watchers, in a process of their own so that decoding their pushes does not hold up the
 * bench process, whose event loop times the bystander. `tsx watchers.ts <url> <count>`: opens `count` connections
 * that each subscribe to the workspace's events, prints "ready", then, for each line read on stdin, the pushes
 * received so far ("received <n>"); it exits when stdin ends.
 */
import type { Socket } from 'socket.io-client';
import { call, openAgent } from '../load/wire-client.ts';
import { CROWD_WORKSPACE } from './shape.ts';

const [url, countText] = process.argv.slice(2);
const count = Number(countText);
if (!url || !Number.isInteger(count) || count < 1) throw new Error('usage: watchers.ts <url> <count>');

let received = 0;
const sockets: Socket[] = [];
// A few at a time: each connection also reads its stored subscriptions once.
for (let first = 0; first < count; first += 50) {
  const batch = Array.from({ length: Math.min(50, count - first) }, async (_, i) => {
    const socket = await openAgent(url, CROWD_WORKSPACE, `watcher-${first + i}`, 'dashboard');
    socket.on('event', () => void (received += 1));
    await call(socket, 'subscribeToTasks', { agent_id: '*', event_types: ['step_completed'], after_event: '$' });
    return socket;
  });
  sockets.push(...(await Promise.all(batch)));
}
process.stdout.write('ready\n');
process.stdin.setEncoding('utf8').on('data', () => process.stdout.write(`received ${received}\n`));
process.stdin.on('end', () => {
  for (const socket of sockets) socket.close();
  process.exit(0);
});
