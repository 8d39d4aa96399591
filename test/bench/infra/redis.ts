import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnLogged } from './processes.ts';

export interface BenchRedis {
  url: string;
  version: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * A private redis-server for the run, on a free port, never the machine's 6379. Persistence is off: the bench
 * measures PlanHub against floors on the same Redis, and both would pay the same for persistence, so the ratios
 * hold whatever the production setting.
 */
export const startRedis = async (): Promise<BenchRedis> => {
  const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (found.error || found.status !== 0)
    throw new Error('pnpm bench needs redis-server: apt-get install -y redis-server (or brew install redis).');
  const version = /v=(\S+)/.exec(found.stdout)?.[1] ?? found.stdout.trim();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'planhub-bench-redis-'));
  const redis = spawnLogged('redis', 'redis-server', [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--maxmemory-policy',
    'noeviction',
  ]);
  await new Promise<void>((done, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start on ${port}: ${out}`)), 10_000);
    redis.child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        done();
      }
    });
    void redis.exited.then((code) => reject(new Error(`redis-server exited with ${code}: ${out}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    version,
    pid: redis.child.pid as number,
    async stop() {
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
