import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../../..');
export const LOG_DIR = join(REPO_ROOT, '.bench', 'logs');

const children = new Set<ChildProcess>();
// Whatever happens to the bench (error, Ctrl-C), the processes it started die with it.
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export const freePort = () =>
  new Promise<number>((done, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? done(address.port) : reject(new Error('no port'))));
    });
  });

export interface Spawned {
  name: string;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** Starts a process whose output goes to .bench/logs/<name>.log; stop() sends SIGTERM, then SIGKILL after 5 s. */
export const spawnLogged = (name: string, command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) => {
  mkdirSync(LOG_DIR, { recursive: true });
  const log = createWriteStream(join(LOG_DIR, `${name}.log`));
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<number | null>((done) =>
    child.once('exit', (code) => {
      children.delete(child);
      done(code);
    }),
  );
  const spawned: Spawned = {
    name,
    child,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
      log.end();
    },
  };
  return spawned;
};

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Polls GET /healthz until it answers 200; fails at once if the process exits, naming its log. */
export const waitHealthy = async (spawned: Spawned, port: number, timeoutMs = 30_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void spawned.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${spawned.name} exited during startup; see ${join(LOG_DIR, `${spawned.name}.log`)}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`${spawned.name} did not become healthy in ${timeoutMs} ms; see ${LOG_DIR}`);
};

/** A TypeScript entry point run the way production runs it: node --import tsx <file>. */
export const startNodeServer = async (name: string, file: string, env: NodeJS.ProcessEnv) => {
  const port = await freePort();
  const spawned = spawnLogged(name, process.execPath, ['--import', 'tsx', file], { ...env, PORT: String(port) });
  await waitHealthy(spawned, port);
  return { ...spawned, port, url: `http://127.0.0.1:${port}` };
};
export type NodeServer = Awaited<ReturnType<typeof startNodeServer>>;
