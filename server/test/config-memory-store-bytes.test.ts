import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromEnv, ENV_NAMES, settingsHelp } from '../src/config.ts';

/** PLANHUB_MEMORY_STORE_BYTES: the memory store's bound across workspaces, read like PLANHUB_MEMORY_EVENT_BYTES. */
describe('the memory store bound setting', () => {
  // An empty planhub.json, so a file in the working directory cannot change what is read.
  const dir = mkdtempSync(join(tmpdir(), 'planhub-env-'));
  const base = { PLANHUB_CONFIG: join(dir, 'planhub.json') };
  writeFileSync(base.PLANHUB_CONFIG, '{}');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('defaults to 1 GiB, is read from the environment and listed by --help', () => {
    expect(configFromEnv(base).memoryStoreBytes).toBe(1024 * 1024 * 1024);
    expect(configFromEnv({ ...base, PLANHUB_MEMORY_STORE_BYTES: '5000000' }).memoryStoreBytes).toBe(5_000_000);
    expect(ENV_NAMES.memoryStoreBytes).toBe('PLANHUB_MEMORY_STORE_BYTES');
    expect(settingsHelp()).toContain('PLANHUB_MEMORY_STORE_BYTES (default 1073741824)');
  });

  it('refuses what is not a whole number of bytes, saying how it relates to the heap and the event budget', () => {
    expect(() => configFromEnv({ ...base, PLANHUB_MEMORY_STORE_BYTES: '1GB' })).toThrow(
      'PLANHUB_MEMORY_STORE_BYTES is "1GB": allowed is a whole number of bytes greater than 0, e.g. 1073741824 ' +
        '(1 GiB); keep it well under the heap (--max-old-space-size) and above PLANHUB_MEMORY_EVENT_BYTES.',
    );
  });
});
