import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

const LOCALE = 'en_US.UTF-8';
const SOURCE = '/usr/share/i18n/locales/en_US';
const STARTUP_TIMEOUT_MS = 10_000;

export interface LocalizedRedis {
  url: string;
  dispose(): Promise<void>;
}

/**
 * Builds en_US.UTF-8 in a temporary directory. Debian's C.UTF-8 collates by code point, the same as byte order, so
 * only a real language's collation shows a script that compares strings with Lua's `<` (strcoll). Missing tools fail
 * with the package to install: the suite never skips what it cannot check.
 */
const buildLocale = (dir: string): void => {
  if (!existsSync(SOURCE))
    throw new Error(`${SOURCE} is missing: install the Debian package locales (apt-get install -y locales).`);
  const built = spawnSync('localedef', ['-i', 'en_US', '-f', 'UTF-8', join(dir, LOCALE)], { encoding: 'utf8' });
  if (built.error)
    throw new Error(
      'localedef is missing: install the Debian packages libc-bin and locales (apt-get install -y locales).',
    );
  if (built.status !== 0) throw new Error(`localedef failed (${built.status}): ${built.stderr}`);
};

/** A private redis-server whose collation is en_US.UTF-8 (Redis sets LC_COLLATE from its environment). */
export const startLocalizedRedis = async (): Promise<LocalizedRedis> => {
  const locales = mkdtempSync(join(tmpdir(), 'planhub-locale-'));
  const data = mkdtempSync(join(tmpdir(), 'planhub-redis-'));
  const cleanup = () => {
    rmSync(locales, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  };
  let child: ChildProcess | undefined;
  try {
    buildLocale(locales);
    const port = await freePort();
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', data, '--save', '', '--appendonly', 'no'];
    const proc = spawn('redis-server', args, {
      env: { ...process.env, LOCPATH: locales, LC_ALL: LOCALE },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), STARTUP_TIMEOUT_MS);
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
    return {
      url: `redis://127.0.0.1:${port}`,
      async dispose() {
        const exited = new Promise((resolve) => proc.once('exit', resolve));
        if (proc.exitCode === null && proc.signalCode === null) {
          proc.kill('SIGKILL');
          await exited;
        }
        cleanup();
      },
    };
  } catch (error) {
    child?.kill('SIGKILL');
    cleanup();
    throw error;
  }
};
