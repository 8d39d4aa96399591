import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfigFile } from '../src/config-file.ts';
import { configFromEnv, storeKindOf } from '../src/config.ts';

describe('choosing the store', () => {
  const dirs: string[] = [];
  const fileWith = (json: unknown, name = 'todo.json') => {
    const dir = mkdtempSync(join(tmpdir(), 'planhub-storage-config-'));
    dirs.push(dir);
    writeFileSync(join(dir, name), JSON.stringify(json));
    return { dir, path: join(dir, name) };
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("reads seed 000's todo.json as written: the file store at storage_path, relative to the working directory", () => {
    const { dir } = fileWith(
      { reporter_type: 'console', storage_type: 'file', storage_path: '.jaato/plans.json' },
      'planhub.json',
    );
    expect(readConfigFile({}, dir)).toMatchObject({
      storageType: 'file',
      storagePath: join(dir, '.jaato/plans.json'),
    });
  });

  it('takes hybrid as the same durable store, with the seed’s default path', () => {
    const { path } = fileWith({ storage_type: 'hybrid' });
    const config = configFromEnv({ PLANHUB_CONFIG: path });
    expect(config.storageType).toBe('hybrid');
    expect(config.storagePath).toBe(resolve('.jaato/plans.json'));
    expect(storeKindOf(config)).toBe('file');
  });

  it('selects the file store from the environment', () => {
    const config = configFromEnv({ PLANHUB_STORE: 'file', PLANHUB_STORAGE_PATH: '/var/lib/planhub' });
    expect(storeKindOf(config)).toBe('file');
    expect(config.storagePath).toBe('/var/lib/planhub');
    expect(storeKindOf(configFromEnv({ PLANHUB_STORAGE_PATH: '/var/lib/planhub' }))).toBe('file');
    expect(storeKindOf(configFromEnv({}))).toBe('memory');
    expect(storeKindOf(configFromEnv({ REDIS_URL: 'redis://r:6379' }))).toBe('redis');
  });

  it('refuses contradicting or incomplete store settings with the names the operator wrote', () => {
    expect(() => configFromEnv({ PLANHUB_STORE: 'disk' })).toThrow(
      /PLANHUB_STORE is "disk": allowed is one of memory, redis, file, hybrid/,
    );
    expect(() => configFromEnv({ PLANHUB_STORE: 'file' })).toThrow(
      /PLANHUB_STORE is "file", which needs a directory: set PLANHUB_STORAGE_PATH/,
    );
    const { path } = fileWith({ storage_type: 'file', storage_path: 'data' });
    expect(() => configFromEnv({ PLANHUB_CONFIG: path, REDIS_URL: 'redis://r:6379' })).toThrow(
      new RegExp(`REDIS_URL is set, but storage_type in ${path} selects the file store`),
    );
    expect(() => configFromEnv({ PLANHUB_STORE: 'redis' })).toThrow(/PLANHUB_STORE is "redis", which needs REDIS_URL/);
  });
});
