import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

export interface RedisProcess {
  port: number;
  url: string;
  /** Kills redis-server with SIGKILL (a crash, not a shutdown) and waits until it has exited. */
  kill(): Promise<void>;
  /** Starts it again on the same port and data directory. */
  start(): Promise<void>;
  /** Sends a signal to redis-server (SIGSTOP hangs it: connections stay open, nothing answers; SIGCONT resumes). */
  signal(signal: NodeJS.Signals): void;
  /** Kills it and removes its data. */
  dispose(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 10_000;

/**
 * A private redis-server on a free port of 127.0.0.1 with its own data directory: the suite's shared one (globalSetup)
 * and the ones fault tests kill (the shared one must never be killed). `durable` appends every write to the AOF with
 * fsync, so a SIGKILL loses nothing that was acknowledged.
 */
export const startRedisProcess = async (
  options: {
    durable?: boolean;
    /** Extra redis-server arguments (e.g. `--maxmemory`). */ args?: readonly string[];
    /** Extra environment of the process (e.g. its locale). */ env?: Readonly<Record<string, string>>;
  } = {},
): Promise<RedisProcess> => {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'planhub-redis-'));
  const persistence = options.durable ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  let child: ChildProcess | undefined;

  const start = () =>
    new Promise<void>((resolve, reject) => {
      const proc = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          dir,
          '--save',
          '',
          ...persistence,
          ...(options.args ?? []),
        ],
        { stdio: ['ignore', 'pipe', 'pipe'], ...(options.env ? { env: { ...process.env, ...options.env } } : {}) },
      );
      child = proc;
      let out = '';
      const timer = setTimeout(
        () => reject(new Error(`redis-server did not start on ${port}: ${out}`)),
        STARTUP_TIMEOUT_MS,
      );
      proc.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}: ${out}`));
      });
    });

  const kill = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  };

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    start,
    signal: (signal) => void child?.kill(signal),
    async dispose() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
