import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { eventually } from '../helpers/eventually.ts';
import { freePort } from '../helpers/free-port.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { HAPROXY } from './haproxy.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** How long `docker compose stop` waits for the haproxy service before it SIGKILLs it (compose's default: 10 s). */
const graceMs = (): number => {
  const compose = parse(readFileSync(`${ROOT}docker-compose.yml`, 'utf8'), { merge: true }) as {
    services: Record<string, { stop_grace_period?: string }>;
  };
  const grace = compose.services.haproxy?.stop_grace_period ?? '10s';
  const match = /^(\d+)(ms|s)$/.exec(grace);
  if (!match) throw new Error(`unexpected stop_grace_period ${grace}`);
  return Number(match[1]) * (match[2] === 's' ? 1000 : 1);
};

/**
 * `docker stop` on the official haproxy image: SIGUSR1 to its master process (`haproxy -W -db`, the image's
 * entrypoint), a soft stop that waits for open connections. WebSockets are tunnels (`timeout tunnel 1h`), so without
 * hard-stop-after HAProxy waited out the whole stop_grace_period and was SIGKILLed (exit 137) on every stop.
 */
describe('HAProxy (deploy/haproxy.cfg) stopped with WebSockets open', () => {
  let node: ServerProcess;
  let haproxy: ChildProcess | undefined;
  let url: string;
  const lines: string[] = [];
  const sockets: Socket[] = [];

  beforeAll(async () => {
    node = await startServerProcess({});
    const at = `127.0.0.1:${node.port}`;
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    haproxy = spawn(HAPROXY, ['-W', '-db', '-f', `${ROOT}deploy/haproxy.cfg`], {
      env: {
        PATH: process.env.PATH ?? '',
        PLANHUB_LB_BIND: `127.0.0.1:${port}`,
        PLANHUB_NODE_A: at,
        PLANHUB_NODE_B: at,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // A crashed run must not leave it behind (its worker follows the master out).
    const child = haproxy;
    process.once('exit', () => child.kill('SIGKILL'));
    createInterface({ input: haproxy.stdout as NodeJS.ReadableStream }).on('line', (l) => lines.push(l));
    createInterface({ input: haproxy.stderr as NodeJS.ReadableStream }).on('line', (l) => lines.push(l));
    await eventually(async () => {
      if (haproxy?.exitCode !== null) throw new Error(`haproxy exited:\n${lines.join('\n')}`);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
    });
  }, 60_000);
  afterAll(async () => {
    for (const s of sockets) s.close();
    if (haproxy && haproxy.exitCode === null && haproxy.signalCode === null) {
      const exited = new Promise((resolve) => haproxy?.once('exit', resolve));
      haproxy.kill('SIGKILL');
      await exited;
    }
    await node?.stop('SIGTERM');
  });

  it("exits by itself within compose's stop_grace_period, and its clients are disconnected", async () => {
    const disconnects: string[] = [];
    for (let i = 0; i < 2; i++) {
      const socket = io(url, {
        transports: ['websocket'],
        reconnection: false,
        auth: { workspace: 'stop', agent_id: `agent-${i}`, role: 'agent' },
      });
      sockets.push(socket);
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('connect_error', reject));
      socket.once('disconnect', (reason) => disconnects.push(reason));
    }

    const child = haproxy as ChildProcess;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const grace = graceMs();
    child.kill('SIGUSR1');
    const outcome = await Promise.race([
      exited.then((code) => ({ code })),
      new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), grace)),
    ]);
    expect(outcome, `haproxy after SIGUSR1 and ${grace} ms:\n${lines.join('\n')}`).toEqual({ code: 0 });
    await eventually(() => expect(disconnects).toHaveLength(2));
  }, 30_000);
});
