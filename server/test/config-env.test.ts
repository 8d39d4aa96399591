import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config-error.ts';
import { configFromEnv, ENV_NAMES, limitEnvNames } from '../src/config.ts';

/** zod's own phrases (its English locale), which say nothing about the setting an operator has to fix. */
const ZOD_WORDING = /Invalid input|Invalid URL|Invalid option|Too small|Too big|expected (number|int|string)|received/;

/**
 * Values each variable refuses. A variable missing here is tried with these three, which every number refuses; a
 * new variable that accepts them all fails the test until it is given values of its own.
 */
// Number() read ' ' as 0, '1e4' as 10000 and '0x50' as 80: none is what an operator means by a whole number.
const NUMBER_BAD = ['abc', '-1', '1.5', ' ', '1e4', '0x50'];
const BAD: Record<string, string[]> = {
  HOST: ['http://0.0.0.0', 'my host'],
  REDIS_URL: ['http://cache:6379', 'redis-host:6379'],
  REDIS_PREFIX: ['a{b}'],
  PLANHUB_STORE: ['disk'],
  PLANHUB_REDIS_CLUSTER_NODES: ['10.0.0.1', 'redis://10.0.0.1:7000'],
  PLANHUB_SECRET: ['short'],
  PLANHUB_METRICS_TOKEN: ['short'],
  LOG_LEVEL: ['loud'],
  PLANHUB_APPROVAL_POLICY: ['sometimes'],
  PLANHUB_ALLOWED_ORIGINS: ['notanorigin', 'localhost:3000', 'file:///index.html'],
  // Each of these would be kept and then never equal a Host header: no brackets, a wildcard, the port URL drops.
  PLANHUB_ALLOWED_HOSTS: ['https://dash.example.com', 'dash.example.com/app', 'fd00::1', '*.example.com', 'host:80'],
  PLANHUB_TRUSTED_PROXIES: ['balancer', '10.0.0.0/33'],
  PLANHUB_TOKEN_MAX_LIFETIME: ['soon', '0'],
  PLANHUB_LIMIT_OUTBOUND_BYTES: [...NUMBER_BAD, '1024'],
};

/** Any path is a directory the store may create; one it cannot use is refused when the store opens it. */
const NO_BAD_VALUE = new Set(['PLANHUB_STORAGE_PATH']);

/** Secrets are never echoed: their line says "is too weak: use …" instead of quoting the value. */
const SECRETS = new Set(['PLANHUB_SECRET', 'PLANHUB_METRICS_TOKEN']);

describe('environment settings refused at startup', () => {
  // An empty planhub.json, so a file in the working directory cannot add settings or rename them in the message.
  const dir = mkdtempSync(join(tmpdir(), 'planhub-env-'));
  const PLANHUB_CONFIG = join(dir, 'planhub.json');
  writeFileSync(PLANHUB_CONFIG, '{}');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const messageOf = (env: NodeJS.ProcessEnv): string => {
    try {
      configFromEnv({ PLANHUB_CONFIG, ...env });
    } catch (err) {
      if (err instanceof ConfigError) return err.message;
      throw err;
    }
    throw new Error(`${JSON.stringify(env)} was accepted`);
  };

  const names = [...Object.values(ENV_NAMES), ...limitEnvNames()].filter((name) => !NO_BAD_VALUE.has(name));

  it.each(names)('answers a bad %s with one line naming it and what it accepts, in no words of zod', (name) => {
    for (const value of BAD[name] ?? NUMBER_BAD) {
      const message = messageOf({ [name]: value });
      expect(message, `${name}=${value}`).toMatch(new RegExp(`^${name} is `));
      expect(message, `${name}=${value}`).toMatch(SECRETS.has(name) ? /is too weak: use / : /: allowed is /);
      expect(message, `${name}=${value}`).not.toMatch(ZOD_WORDING);
      expect(message, `${name}=${value}`).not.toContain('\n');
    }
  });

  it('says what the schema allows where no text is written for the setting', () => {
    expect(messageOf({ PLANHUB_STALL_AFTER_MS: 'abc' })).toBe(
      'PLANHUB_STALL_AFTER_MS is "abc": allowed is a whole number greater than 0.',
    );
    expect(messageOf({ PLANHUB_REDIS_WAIT_REPLICAS: '-1' })).toBe(
      'PLANHUB_REDIS_WAIT_REPLICAS is "-1": allowed is a whole number from 0 to 16.',
    );
    expect(messageOf({ PLANHUB_LIMIT_OUTBOUND_BYTES: '1024' })).toBe(
      'PLANHUB_LIMIT_OUTBOUND_BYTES is "1024": allowed is a whole number of at least 1048576.',
    );
  });

  it('refuses brackets and a port in HOST with their own reason, not as an open-mode address', () => {
    expect(messageOf({ HOST: '[::1]' })).toBe(
      'HOST is "[::1]": write an IPv6 address without brackets, e.g. ::1 (the port goes in PORT).',
    );
    expect(messageOf({ HOST: '127.0.0.1:4000' })).toBe(
      'HOST is "127.0.0.1:4000": the port goes in PORT; allowed is an address or host name alone, e.g. 127.0.0.1.',
    );
    for (const host of ['planhub:host', '[planhub]'])
      expect(messageOf({ HOST: host })).toBe(
        `HOST is "${host}": only an IPv6 address may contain ':', and none is written in brackets here, e.g. :: or ::1.`,
      );
  });

  it('echoes a refused value as it was typed, masking only a password', () => {
    expect(messageOf({ HOST: 'http://0.0.0.0' })).toMatch(/^HOST is "http:\/\/0\.0\.0\.0": allowed is /);
    const masked = messageOf({ REDIS_URL: 'http://ops:hunter2hunter2@cache:6379' });
    expect(masked).toMatch(/^REDIS_URL is "http:\/\/ops:\*\*\*@cache:6379\/?": allowed is /);
    expect(masked).not.toContain('hunter2');
  });

  it('answers a bad origin with an example of a good one', () => {
    expect(messageOf({ PLANHUB_ALLOWED_ORIGINS: 'https://ok.example,notanorigin' })).toMatch(
      /^PLANHUB_ALLOWED_ORIGINS is "notanorigin": allowed is origins such as https:\/\/dash\.example\.com/,
    );
  });

  it('keeps the explanation of two settings that contradict each other', () => {
    expect(messageOf({ REDIS_URL: 'redis://a:6379', PLANHUB_REDIS_CLUSTER_NODES: 'b:7000' })).toMatch(
      /^PLANHUB_REDIS_CLUSTER_NODES is "b:7000": a Redis Cluster \(seed nodes\) and a single Redis \(REDIS_URL\) cannot both be set/,
    );
  });

  it('still accepts the values the documentation shows', () => {
    const config = configFromEnv({
      PLANHUB_CONFIG,
      HOST: '0.0.0.0',
      PLANHUB_ALLOWED_ORIGINS: 'https://dash.example.com, http://localhost:5173',
      PLANHUB_ALLOWED_HOSTS: 'dash.example.com,planhub.internal:4000',
    });
    expect(
      configFromEnv({ PLANHUB_CONFIG, PLANHUB_ALLOWED_HOSTS: 'Dash.Example.com,[fd00::1],[fd00::1]:4000' })
        .allowedHosts,
    ).toEqual(['Dash.Example.com', '[fd00::1]', '[fd00::1]:4000']);
    expect(configFromEnv({ PLANHUB_CONFIG, HOST: 'fd00::1' }).host).toBe('fd00::1');
    expect(config.host).toBe('0.0.0.0');
    expect(config.allowedOrigins).toEqual(['https://dash.example.com', 'http://localhost:5173']);
    expect(config.allowedHosts).toEqual(['dash.example.com', 'planhub.internal:4000']);
    expect(configFromEnv({ PLANHUB_CONFIG, HOST: '::' }).host).toBe('::');
  });
});

describe('docs/operations.md', () => {
  it('lists every environment variable of config.ts in its Settings table', () => {
    const text = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const start = text.indexOf('\n## Settings\n');
    const end = text.indexOf('\n## ', start + 1);
    const table = new Set(
      [...text.slice(start, end === -1 ? undefined : end).matchAll(/^\| `([A-Z_<>]+)` \|/gm)].map((m) => m[1]),
    );
    expect(start).toBeGreaterThan(-1);
    expect(Object.values(ENV_NAMES).filter((name) => !table.has(name))).toEqual([]);
  });
});
