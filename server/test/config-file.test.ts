import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfigFile } from '../src/config-file.ts';
import { configFromEnv, storeKindOf } from '../src/config.ts';

/** zod's own phrases (its English locale), which say nothing about the key an operator has to fix. */
const ZOD_WORDING =
  /Invalid input|Invalid URL|Invalid option|Too small|Too big|Unrecognized key|expected (number|int|string)|received/;

describe('planhub.json', () => {
  const dirs: string[] = [];
  const dirWith = (json: unknown) => {
    const dir = mkdtempSync(join(tmpdir(), 'planhub-config-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'planhub.json'), typeof json === 'string' ? json : JSON.stringify(json));
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("reads seed 000's form: reporter_type with reporter_config, the secret from the environment", () => {
    const dir = dirWith({
      reporter_type: 'webhook',
      reporter_config: {
        url: 'https://api.example.com/plans',
        headers: { Authorization: 'Bearer token' },
        secret_env: 'HOOK_SECRET',
      },
    });
    const file = readConfigFile({ HOOK_SECRET: 'x'.repeat(20) }, dir);
    expect(file.reporters).toEqual([
      expect.objectContaining({
        type: 'webhook',
        url: 'https://api.example.com/plans',
        headers: { Authorization: 'Bearer token' },
        secret: 'x'.repeat(20),
        allow_private: false,
      }),
    ]);
  });

  it('defaults to the console reporter like the seed, and maps storage_type redis', () => {
    const dir = dirWith({ storage_type: 'redis', storage_config: { url: 'redis://10.0.0.5:6379', prefix: 'team' } });
    expect(readConfigFile({}, dir)).toEqual({
      reporters: [{ type: 'console', level: 'info' }],
      storageType: 'redis',
      redisUrl: 'redis://10.0.0.5:6379',
      redisPrefix: 'team',
    });
  });

  it('maps storage_config.cluster_nodes and wait_replicas to a Redis Cluster, or takes them from the environment', () => {
    const dir = dirWith({
      storage_type: 'redis',
      storage_config: { cluster_nodes: ['10.0.0.5:7000', '10.0.0.6:7000'], wait_replicas: 1 },
    });
    const config = configFromEnv({ PLANHUB_CONFIG: join(dir, 'planhub.json') });
    expect(config).toMatchObject({ redisClusterNodes: ['10.0.0.5:7000', '10.0.0.6:7000'], redisWaitReplicas: 1 });
    expect(config.redisUrl).toBeUndefined();
    // The environment's single Redis replaces the file's Cluster, and the other way round.
    const fromEnv = configFromEnv({ PLANHUB_CONFIG: join(dir, 'planhub.json'), REDIS_URL: 'redis://env:2' });
    expect(fromEnv.redisUrl).toBe('redis://env:2');
    expect(fromEnv.redisClusterNodes).toBeUndefined();
    expect(
      configFromEnv({ PLANHUB_REDIS_CLUSTER_NODES: ' a:1, [::1]:2 ', PLANHUB_REDIS_WAIT_REPLICAS: '2' }),
    ).toMatchObject({ redisClusterNodes: ['a:1', '[::1]:2'], redisWaitReplicas: 2 });
    expect(() => configFromEnv({ PLANHUB_REDIS_CLUSTER_NODES: 'redis://a:1' })).toThrow(
      /PLANHUB_REDIS_CLUSTER_NODES.*host:port/,
    );
    expect(() => configFromEnv({ PLANHUB_REDIS_CLUSTER_NODES: 'a:1', REDIS_URL: 'redis://b:2' })).toThrow(
      /cannot both be set/,
    );
  });

  it('lets the environment win over the file and uses PLANHUB_CONFIG when set', () => {
    const dir = dirWith({
      reporters: [{ type: 'file', path: '/tmp/x.log' }],
      storage_type: 'redis',
      storage_config: { url: 'redis://file:1' },
    });
    const config = configFromEnv({ PLANHUB_CONFIG: join(dir, 'planhub.json'), REDIS_URL: 'redis://env:2' });
    expect(config.redisUrl).toBe('redis://env:2');
    expect(config.reporters).toEqual([
      expect.objectContaining({ type: 'file', path: '/tmp/x.log', max_bytes: 10 * 1024 * 1024 }),
    ]);
  });

  it('selects the file store from storage_path alone, as PLANHUB_STORAGE_PATH alone does', () => {
    const dir = dirWith({ storage_path: 'data' });
    expect(readConfigFile({}, dir).storagePath).toBe(join(dir, 'data'));
    const config = configFromEnv({ PLANHUB_CONFIG: join(dir, 'planhub.json') });
    expect(storeKindOf(config)).toBe('file');
  });

  it('selects Redis from storage_config.url alone, as REDIS_URL alone does', () => {
    const dir = dirWith({ storage_config: { url: 'redis://10.0.0.5:6379' } });
    const config = configFromEnv({ PLANHUB_CONFIG: join(dir, 'planhub.json') });
    expect(config.redisUrl).toBe('redis://10.0.0.5:6379');
    expect(storeKindOf(config)).toBe('redis');
  });

  it('refuses a storage key the chosen store cannot use, naming both keys', () => {
    const refusal = (json: unknown) => () => configFromEnv({ PLANHUB_CONFIG: join(dirWith(json), 'planhub.json') });
    expect(refusal({ storage_type: 'memory', storage_config: { url: 'redis://r:6379' } })).toThrow(
      /^storage_config\.url in \S+planhub\.json is set, but storage_type in \S+planhub\.json is "memory", which uses no Redis/,
    );
    expect(refusal({ storage_type: 'redis', storage_path: 'data', storage_config: { url: 'redis://r:6379' } })).toThrow(
      /^storage_path in \S+ is set, but storage_type in \S+ is "redis", which keeps nothing on disk/,
    );
    expect(refusal({ storage_type: 'file', storage_config: { cluster_nodes: ['10.0.0.5:7000'] } })).toThrow(
      /^storage_config\.cluster_nodes in \S+ is set, but storage_type in \S+ selects the file store/,
    );
    expect(refusal({ storage_path: 'data', storage_config: { url: 'redis://r:6379' } })).toThrow(
      /^storage_config\.url in \S+ is set, but storage_path in \S+ selects the file store/,
    );
  });

  it('explains a bad key as an environment setting is explained, in no words of zod', () => {
    const messageOf = (json: unknown, env: NodeJS.ProcessEnv = {}) => {
      const dir = dirWith(json);
      try {
        readConfigFile(env, dir);
      } catch (err) {
        return (err as Error).message.replace(`Invalid PlanHub config ${join(dir, 'planhub.json')}: `, '');
      }
      throw new Error(`${JSON.stringify(json)} was accepted`);
    };
    const answers = [
      [
        { reporters: [{ type: 'webhook', url: 'https://hooks.example.com', batch_size: 0 }] },
        'reporters.0.batch_size is "0": allowed is a whole number greater than 0 and at most 1000.',
      ],
      [{ reporters: [{ type: 'file' }] }, 'reporters.0.path missing: allowed is non-empty text.'],
      [{ reporters: [{ type: 'mail' }] }, 'reporters.0.type is "mail": allowed is one of console, file, webhook.'],
      [
        { reporter_type: 'console', reporter_config: { level: 'loud', event_types: [] } },
        'reporter_config.level is "loud": allowed is one of info, debug, warn. reporter_config.event_types is "[]": ' +
          'allowed is a list of at least 1, each one of plan_created',
      ],
      [
        { reporter_type: 'webhook', reporter_config: { url: 'https://hooks.example.com', secret: 'hunter2' } },
        'reporter_config.secret is too weak: use text of at least 16 characters.',
      ],
      [{ storage_type: 'disk' }, 'storage_type is "disk": allowed is one of memory, redis, file, hybrid.'],
      [{ storage_config: { urll: 'redis://r:6379' } }, 'storage_config.urll is not a setting: allowed are url, prefix'],
    ] as const;
    for (const [json, answer] of answers) {
      const message = messageOf(json);
      expect(message, JSON.stringify(json)).toContain(answer);
      expect(message, JSON.stringify(json)).not.toMatch(ZOD_WORDING);
      expect(message, JSON.stringify(json)).not.toContain('hunter2');
    }
  });

  it('is optional: no file, no reporters', () => {
    const dir = mkdtempSync(join(tmpdir(), 'planhub-config-'));
    dirs.push(dir);
    expect(readConfigFile({}, dir)).toEqual({});
  });

  it('refuses what it cannot use, naming the file and the field', () => {
    const dir = dirWith({ reporter_type: 'webhook', reporter_config: { url: 'http://127.0.0.1/x' } });
    expect(() => readConfigFile({}, dir)).toThrow(
      /planhub\.json: reporter_config\.url is "http:\/\/127\.0\.0\.1\/x": 127\.0\.0\.1 is a loopback.*allow_private/,
    );
    expect(() => readConfigFile({}, dirWith({ reporter_typo: 'console' }))).toThrow(/reporter_typo/);
    expect(() => readConfigFile({}, dirWith('{ not json'))).toThrow(/Invalid PlanHub config .*planhub\.json/);
    expect(() => readConfigFile({ PLANHUB_CONFIG: '/nonexistent/planhub.json' })).toThrow(/nonexistent/);
    expect(() =>
      readConfigFile(
        {},
        dirWith({ reporter_type: 'webhook', reporter_config: { url: 'https://a.example', secret_env: 'NOPE' } }),
      ),
    ).toThrow(/secret_env names "NOPE"/);
  });

  it('takes the event log retention from PLANHUB_EVENT_RETENTION and refuses a nonsensical one', () => {
    expect(configFromEnv({}).eventRetention).toBe(10_000);
    expect(configFromEnv({ PLANHUB_EVENT_RETENTION: '500' }).eventRetention).toBe(500);
    expect(() => configFromEnv({ PLANHUB_EVENT_RETENTION: '-3' })).toThrow();
  });

  it('takes the finished plans each agent keeps from PLANHUB_FINISHED_PLANS_KEPT, at least one', () => {
    expect(configFromEnv({}).finishedPlansKept).toBe(20);
    expect(configFromEnv({ PLANHUB_FINISHED_PLANS_KEPT: '3' }).finishedPlansKept).toBe(3);
    expect(() => configFromEnv({ PLANHUB_FINISHED_PLANS_KEPT: '0' })).toThrow(
      /PLANHUB_FINISHED_PLANS_KEPT is "0": allowed is a whole number of plans greater than 0/,
    );
  });
});
