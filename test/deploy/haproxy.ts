import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { eventually } from '../helpers/eventually.ts';
import { freePort } from '../helpers/free-port.ts';

const CFG = fileURLToPath(new URL('../../deploy/haproxy.cfg', import.meta.url));
/** Debian installs it outside a normal user's PATH. */
export const HAPROXY = '/usr/sbin/haproxy';

export interface Balancer {
  url: string;
  output(): string;
  close(): Promise<void>;
}

/**
 * Debian's haproxy with deploy/haproxy.cfg, the file docker-compose.yml mounts, in front of `backends`
 * (host:port, in the cfg's server order). Resolves once the balancer answers /readyz through a healthy backend.
 */
export const startHaproxy = async (backends: readonly [string, string]): Promise<Balancer> => {
  const port = await freePort();
  const child = spawn(HAPROXY, ['-db', '-f', CFG], {
    env: {
      PATH: process.env.PATH ?? '',
      PLANHUB_LB_BIND: `127.0.0.1:${port}`,
      PLANHUB_NODE_A: backends[0],
      PLANHUB_NODE_B: backends[1],
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const keep = (line: string) => {
    lines.push(line);
    if (lines.length > 300) lines.shift();
  };
  createInterface({ input: child.stdout }).on('line', keep);
  createInterface({ input: child.stderr }).on('line', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}:\n${lines.join('\n')}`);
    const res = await fetch(`${url}/readyz`);
    if (res.status !== 200) throw new Error(`haproxy answered ${res.status}`);
  });
  return {
    url,
    output: () => lines.join('\n'),
    async close() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
};
