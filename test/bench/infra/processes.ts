import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../../..');
export const LOG_DIR = join(REPO_ROOT, '.bench', 'logs');

const children = new Set<ChildProcess>();
// Whatever happens to the bench (error, Ctrl-C, kill), the processes it started die with it. A signal would end
// this process without an 'exit' event, so signals exit explicitly.
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

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
  /** Set when the process ended without stop(): by a crash, or by a signal from outside the bench. */
  readonly unexpectedExit: string | undefined;
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
  let stopping = false;
  let unexpectedExit: string | undefined;
  const exited = new Promise<number | null>((done) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      if (!stopping) {
        unexpectedExit = `${name} (pid ${child.pid}) exited unexpectedly (${signal ?? `code ${code}`}); see its log in ${LOG_DIR}`;
        process.stderr.write(`[bench] ${unexpectedExit}\n`);
      }
      done(code);
    }),
  );
  const spawned: Spawned = {
    name,
    child,
    exited,
    get unexpectedExit() {
      return unexpectedExit;
    },
    async stop() {
      stopping = true;
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
export const waitHealthy = async (spawned: Spawned, port: number, timeoutMs = 120_000): Promise<void> => {
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

/** Throws if the server has exited or no longer answers /healthz (e.g. it was told to shut down from outside). */
export const assertHealthy = async (server: Spawned & { port: number }): Promise<void> => {
  if (server.unexpectedExit) throw new Error(server.unexpectedExit);
  const ok = await fetch(`http://127.0.0.1:${server.port}/healthz`, { signal: AbortSignal.timeout(5000) }).then(
    (res) => res.ok,
    () => false,
  );
  if (!ok) throw new Error(`${server.name} (pid ${server.child.pid}) stopped answering /healthz; see ${LOG_DIR}`);
};

/** A server entry point: the built bundle under plain node, or a TypeScript file through tsx. */
/** `nodeArgs`: options for node itself (before the entry point), e.g. V8 heap settings compared by `pnpm bench:ab`. */
export const startNodeServer = async (
  name: string,
  file: string,
  env: NodeJS.ProcessEnv,
  nodeArgs: readonly string[] = [],
) => {
  const port = await freePort();
  const spawned = spawnLogged(
    name,
    process.execPath,
    [
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
      ...nodeArgs,
      // A built bundle (.js) runs under plain node, as production runs it; a TypeScript entry point through tsx.
      ...(file.endsWith('.ts') ? ['--conditions=planhub-source', '--import', 'tsx'] : []),
      file,
    ],
    {
      ...env,
      PORT: String(port),
    },
  );
  await waitHealthy(spawned, port);
  return { ...spawned, port, url: `http://127.0.0.1:${port}` };
};
export type NodeServer = Awaited<ReturnType<typeof startNodeServer>>;
