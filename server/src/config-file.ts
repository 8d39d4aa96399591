import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError, explainIssues } from './config-error.ts';
import {
  ConsoleReporterSchema,
  FileReporterSchema,
  ReporterConfigSchema,
  WebhookReporterSchema,
  type ReporterConfig,
} from './reporters/reporter-config.ts';

/**
 * planhub.json: seed 000's todo.json options, mapped onto PlanHub. `reporter_type` + `reporter_config` (the seed's
 * form) or `reporters` (several at once); `storage_type` memory | redis with `storage_config.url` / `.prefix` (or
 * `.cluster_nodes`, seed nodes host:port of a Redis Cluster, instead of `.url`, and `.wait_replicas`), or file |
 * hybrid with `storage_path` (the durable single-node store; default `.jaato/plans.json`, as the seed's).
 * A webhook secret may be given as `secret_env`, the name of an environment variable that holds it.
 */
const FileSchema = z
  .object({
    reporter_type: z.enum(['console', 'file', 'webhook']).optional(),
    reporter_config: z.record(z.string(), z.unknown()).default({}),
    reporters: z.array(z.record(z.string(), z.unknown())).optional(),
    storage_type: z.enum(['memory', 'redis', 'file', 'hybrid']).optional(),
    storage_path: z.string().min(1).optional(),
    storage_config: z
      .object({
        url: z.string().optional(),
        prefix: z.string().optional(),
        cluster_nodes: z.array(z.string()).optional(),
        wait_replicas: z.number().optional(),
      })
      .strict()
      .default({}),
  })
  .strict();

export interface FileConfig {
  reporters?: ReporterConfig[];
  redisUrl?: string;
  redisPrefix?: string;
  storageType?: 'memory' | 'redis' | 'file' | 'hybrid';
  storagePath?: string;
  redisClusterNodes?: string[];
  redisWaitReplicas?: number;
}

/** The seed's default `storage_path`, used when `storage_type` is file or hybrid and no path is given. */
export const DEFAULT_STORAGE_PATH = '.jaato/plans.json';

/** The file's own name for each setting it can supply, so an error names the key the operator wrote. */
const FILE_KEYS: Record<keyof FileConfig, string> = {
  reporters: 'reporters',
  redisUrl: 'storage_config.url',
  redisPrefix: 'storage_config.prefix',
  storageType: 'storage_type',
  storagePath: 'storage_path',
  redisClusterNodes: 'storage_config.cluster_nodes',
  redisWaitReplicas: 'storage_config.wait_replicas',
};

const configPath = (env: NodeJS.ProcessEnv, cwd: string) =>
  env.PLANHUB_CONFIG ? resolve(cwd, env.PLANHUB_CONFIG) : resolve(cwd, 'planhub.json');

const problem = (path: string, detail: string) => new ConfigError(`Invalid PlanHub config ${path}: ${detail}`);

/** The same "allowed is …" line an environment setting gets, named by the file's own keys (`reporters.0.path`). */
const explain = (path: string, error: z.ZodError, input: unknown, schema: z.ZodType, where = '') =>
  problem(
    path,
    explainIssues(error, input, (at) => [where, ...at.map(String)].filter(Boolean).join('.') || 'the file', schema, {})
      .message,
  );

const REPORTER_KEYS: Record<string, string[]> = {
  console: Object.keys(ConsoleReporterSchema.shape),
  file: Object.keys(FileReporterSchema.shape),
  // secret_env is read here, in place of secret.
  webhook: [...Object.keys(WebhookReporterSchema.shape), 'secret_env'],
};

/**
 * A misspelt key in a reporter entry (`sekret_env`, `evnt_types`) is refused, naming it and its entry: dropped, it
 * would leave a webhook unsigned or sent for every event. The schemas are strict too; this names secret_env as well.
 */
const refuseUnknownKeys = (raw: Record<string, unknown>, where: string, path: string) => {
  const type = typeof raw.type === 'string' ? raw.type : '';
  const known = REPORTER_KEYS[type];
  if (known === undefined) return;
  const unknown = Object.keys(raw).filter((key) => !known.includes(key));
  if (unknown.length === 0) return;
  const names = unknown.map((key) => `${where}.${key}`).join(', ');
  throw problem(
    path,
    `${names} ${unknown.length === 1 ? 'is not a setting' : 'are not settings'} of a ${type} reporter: ` +
      `allowed are ${known.join(', ')}.`,
  );
};

const reporterFrom = (raw: Record<string, unknown>, where: string, path: string, env: NodeJS.ProcessEnv) => {
  const { secret_env: secretEnv, ...rest } = raw;
  if (secretEnv !== undefined) {
    if (typeof secretEnv !== 'string' || !env[secretEnv])
      throw problem(
        path,
        `${where}.secret_env names ${JSON.stringify(secretEnv)}, which is not set in the environment`,
      );
    rest.secret = env[secretEnv];
  }
  refuseUnknownKeys(raw, where, path);
  const parsed = ReporterConfigSchema.safeParse(rest);
  if (!parsed.success) throw explain(path, parsed.error, rest, ReporterConfigSchema, where);
  return parsed.data;
};

/** Reads planhub.json: PLANHUB_CONFIG names it (it must exist), else ./planhub.json is used when present. */
export const readConfigFile = (env: NodeJS.ProcessEnv, cwd = process.cwd()): FileConfig => readFile(env, cwd).config;

/** The file's settings, and the environment variables it names (secret_env), which the environment check allows. */
const readFile = (env: NodeJS.ProcessEnv, cwd: string): { config: FileConfig; envNames: string[] } => {
  const path = configPath(env, cwd);
  if (!env.PLANHUB_CONFIG && !existsSync(path)) return { config: {}, envNames: [] };
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw problem(path, err instanceof Error ? err.message : String(err));
  }
  const parsed = FileSchema.safeParse(json);
  if (!parsed.success) throw explain(path, parsed.error, json, FileSchema);
  const file = parsed.data;
  if (file.reporters && file.reporter_type)
    throw problem(path, 'use either reporter_type + reporter_config or reporters, not both');
  const reporters = file.reporters
    ? file.reporters.map((r, i) => reporterFrom(r, `reporters.${i}`, path, env))
    : [reporterFrom({ ...file.reporter_config, type: file.reporter_type ?? 'console' }, 'reporter_config', path, env)];
  const storage = file.storage_config;
  const redis = file.storage_type === 'redis';
  if (redis && !storage.url && !storage.cluster_nodes && !env.REDIS_URL && !env.PLANHUB_REDIS_CLUSTER_NODES)
    throw problem(
      path,
      'storage_type "redis" needs storage_config.url or storage_config.cluster_nodes (or REDIS_URL / ' +
        'PLANHUB_REDIS_CLUSTER_NODES in the environment)',
    );
  const durable = file.storage_type === 'file' || file.storage_type === 'hybrid';
  // Every key given is passed on, as its environment variable would be: storage_path alone selects the file store
  // and storage_config.url alone Redis (storeKindOf), and a key the chosen store cannot use is refused (checkStorage)
  // instead of dropped, so a store the operator believes durable never turns out to be the memory store.
  const storagePath = file.storage_path ?? (durable ? DEFAULT_STORAGE_PATH : undefined);
  const envNames = [...(file.reporters ?? [file.reporter_config])]
    .map((r) => r.secret_env)
    .filter((name): name is string => typeof name === 'string');
  const config: FileConfig = {
    reporters,
    ...(file.storage_type ? { storageType: file.storage_type } : {}),
    // Relative to the working directory, as the seed's plugin read it.
    ...(storagePath !== undefined ? { storagePath: resolve(cwd, storagePath) } : {}),
    ...(storage.url ? { redisUrl: storage.url } : {}),
    ...(storage.cluster_nodes ? { redisClusterNodes: storage.cluster_nodes } : {}),
    ...(storage.wait_replicas !== undefined ? { redisWaitReplicas: storage.wait_replicas } : {}),
    ...(storage.prefix ? { redisPrefix: storage.prefix } : {}),
  };
  return { config, envNames };
};

/**
 * Environment values win over the file; the file fills in what the environment leaves unset. `fromFile(key)` names
 * a setting that came from the file (`storage_config.url in /path/planhub.json`), for error messages.
 */
export const withConfigFile = <T extends object>(
  env: NodeJS.ProcessEnv,
  fromEnv: T,
  cwd = process.cwd(),
): { merged: T & FileConfig; fromFile: (key: string) => string | undefined; envNames: string[] } => {
  const { config: file, envNames } = readFile(env, cwd);
  const merged: Record<string, unknown> = { ...file };
  const fileKeys = new Set(Object.keys(file));
  for (const [key, value] of Object.entries(fromEnv))
    if (value !== undefined) {
      merged[key] = value;
      fileKeys.delete(key);
    }
  const path = configPath(env, cwd);
  return {
    merged: merged as T & FileConfig,
    fromFile: (key) => (fileKeys.has(key) ? `${FILE_KEYS[key as keyof FileConfig]} in ${path}` : undefined),
    envNames,
  };
};
