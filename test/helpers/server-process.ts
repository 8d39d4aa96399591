import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.ts';
import { serverEntry } from './server-entry.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const READY_TIMEOUT_MS = 30_000;

export interface ServerProcess {
  readonly url: string;
  readonly port: number;
  /** SIGKILL (no shutdown path runs, as when the machine dies) or SIGTERM (graceful); resolves once it exited. */
  stop(signal: 'SIGKILL' | 'SIGTERM'): Promise<number | null>;
  /** Starts it again, same port, working directory and environment, once it has stopped. */
  restart(): Promise<void>;
  output(): string;
}

const alive = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of alive) child.kill('SIGKILL');
});

const ready = async (port: number) => {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`)).ok;
  } catch {
    return false;
  }
};

/**
 * One real server process (`node <the run's server bundle>`, test/helpers/server-entry.ts; by absolute path, so it
 * runs in any working directory and a config file's relative paths resolve against that) in `cwd` with `env` added to this process's
 * environment; resolves once /readyz answers, or rejects with the node's output if it exits or never gets ready.
 */
export const startServerProcess = async (options: {
  cwd?: string;
  env?: Record<string, string>;
}): Promise<ServerProcess> => {
  const port = await freePort();
  const lines: string[] = [];
  let child: ChildProcess | undefined;
  let exited: Promise<number | null> = Promise.resolve(null);

  const launch = async () => {
    const started = spawn(process.execPath, serverEntry(), {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', ...options.env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    alive.add(started);
    const keep = (line: string) => {
      lines.push(line);
      if (lines.length > 200) lines.shift();
    };
    createInterface({ input: started.stdout }).on('line', keep);
    createInterface({ input: started.stderr }).on('line', keep);
    exited = new Promise((resolve) =>
      started.once('exit', (code) => {
        alive.delete(started);
        resolve(code);
      }),
    );
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await ready(port))) {
      if (started.exitCode !== null || started.signalCode !== null || Date.now() > deadline) {
        started.kill('SIGKILL');
        throw new Error(`server process on port ${port} did not become ready:\n${lines.join('\n')}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  await launch();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async stop(signal) {
      child?.kill(signal);
      const code = await exited;
      child = undefined;
      return code;
    },
    async restart() {
      if (child) throw new Error('the server process still runs; stop it first');
      await launch();
    },
    output: () => lines.join('\n'),
  };
};
