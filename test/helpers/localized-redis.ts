import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedisProcess } from './redis-process.ts';

const LOCALE = 'en_US.UTF-8';
const SOURCE = '/usr/share/i18n/locales/en_US';

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
  const cleanup = () => rmSync(locales, { recursive: true, force: true });
  try {
    buildLocale(locales);
    const redis = await startRedisProcess({ env: { LOCPATH: locales, LC_ALL: LOCALE } });
    return {
      url: redis.url,
      async dispose() {
        await redis.dispose();
        cleanup();
      },
    };
  } catch (error) {
    cleanup();
    throw error;
  }
};
