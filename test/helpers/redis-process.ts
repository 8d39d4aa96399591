import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

export interface RedisProcess {
  port: number;
  url: string;
  /** Kills redis-server with SIGKILL (a crash, not a shutdown) and waits until it has exited. */
  kill(): Promise<void>;
  /** Starts it again on the same port and data directory. */
  start(): Promise<void>;
  /** Kills it and removes its data. */
  dispose(): Promise<void>;
}

/**
 * A redis-server of one test's own, for fault injection (the shared one from globalSetup must never be killed).
 * It appends every write to its AOF with fsync, so a SIGKILL loses nothing that was acknowledged.
 */
export const startRedisProcess = async (): Promise<RedisProcess> => {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'planhub-fault-redis-'));
  let child: ChildProcess | undefined;

  const start = () =>
    new Promise<void>((resolve, reject) => {
      const proc = spawn(
        'redis-server',
        [
          ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''],
          ...['--appendonly', 'yes', '--appendfsync', 'always'],
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = proc;
      let out = '';
      proc.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Ready to accept connections')) resolve();
      });
      proc.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${out}`)));
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
    async dispose() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
