import { resolve } from 'node:path';
import {
  DEFAULT_TOKEN_MAX_LIFETIME_S,
  SECRET_MIN_LENGTH,
  SECRET_VARIETY,
  parseTtl,
  secretVariety,
} from '@planhub/shared';
import { z } from 'zod';
import { ConfigError, explainIssues } from './config-error.ts';
import { checkEnvNames } from './config-env-names.ts';
import { checkHost, isHostHeader } from './config-host.ts';
import { int, wholeNumber, limitEnvName, limitEnvNames, limitsFromEnv, LimitsSchema } from './config-limits.ts';
import { checkStorage } from './config-storage.ts';
import { MEMORY_STORE_BYTES_DEFAULT } from './store/memory-node-bytes.ts';
import { withConfigFile } from './config-file.ts';
import { ReporterConfigSchema } from './reporters/reporter-config.ts';
import { coversAFamily, isProxyEntry } from './transport/client-address.ts';

export { limitEnvNames, LimitsSchema, type Limits } from './config-limits.ts';

export const ServerConfigSchema = z
  .object({
    port: wholeNumber(z.number().min(0).max(65535)).default(4000),
    // A URL here (http://0.0.0.0) would fail at listen with a DNS error instead of naming the setting.
    host: z
      .string()
      .regex(/^[^\s/]+$/, 'must be an address or host name')
      .superRefine(checkHost)
      .default('127.0.0.1'),
    // ioredis would take an http:// URL and then fail on every call; the scheme is checked before anything starts.
    redisUrl: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
    /** Seed nodes of a Redis Cluster (host:port); set instead of redisUrl to run on a Cluster. */
    redisClusterNodes: z
      .array(z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):\d{1,5}$/, 'must be host:port'))
      .min(1)
      .optional(),
    /** Replicas a commit must reach (WAIT) before it is acknowledged; 0 = Redis' asynchronous replication only. */
    redisWaitReplicas: wholeNumber(z.number().min(0).max(16)).default(0),
    /**
     * Which store: unset picks redis when redisUrl (or a Cluster) is set, else memory. `file` is the durable
     * single-node store in `storagePath`; `hybrid` (seed 000's name for memory plus file) is the same store: reads at
     * memory speed from the engine's memory map, every write durable.
     */
    storageType: z.enum(['memory', 'redis', 'file', 'hybrid']).optional(),
    /** The file store's directory (created if missing); setting it alone selects the file store. */
    storagePath: z.string().min(1).optional(),
    /** Redis key prefix, so several deployments (or tests) can share one Redis. */
    redisPrefix: z
      .string()
      .regex(/^[^{}]+$/, 'must not be empty or contain { or }')
      .default('ph'),
    secret: z
      .string()
      .min(SECRET_MIN_LENGTH)
      .refine((s) => s.trim() !== '', 'must not be only whitespace')
      .optional(),
    /** A static bearer token for /metrics (see ops/metrics-auth.ts); unset: role user or dashboard tokens. */
    metricsToken: z
      .string()
      .min(SECRET_MIN_LENGTH)
      .refine((s) => s.trim() !== '', 'must not be only whitespace')
      .optional(),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    approvalPolicy: z.enum(['owner-or-user', 'user', 'auto']).default('owner-or-user'),
    /** Events kept per workspace log. */
    eventRetention: int(10_000),
    /**
     * Finished plans kept per agent (PLANHUB_FINISHED_PLANS_KEPT): past it, the oldest finished ones leave the
     * agent's index and the store as the agent creates or finishes plans. Unfinished plans are never removed; the
     * events of removed plans stay in the log (eventRetention).
     */
    finishedPlansKept: int(20),
    /** Memory store: JSON bytes of events kept across workspaces (oldest dropped), within memoryStoreBytes. */
    memoryEventBytes: int(256 * 1024 * 1024),
    /** Memory store: what all workspaces may hold together, which bounds the heap (store/memory-node-bytes.ts). */
    memoryStoreBytes: int(MEMORY_STORE_BYTES_DEFAULT),
    /**
     * One deadline per call for all its store round trips (PLANHUB_STORE_DEADLINE_MS): a hung Redis answers the call
     * UNAVAILABLE after this long, however many round trips it needed. Also each Redis command's own timeout.
     */
    storeDeadlineMs: int(5_000),
    /** How long a request_id's first answer is remembered. */
    requestTtlMs: int(10 * 60 * 1000),
    limits: LimitsSchema.default(LimitsSchema.parse({})),
    /** Where this node reports the events it commits (planhub.json: reporter_type / reporters). */
    reporters: z.array(ReporterConfigSchema).default([]),
    /** Origins whose pages may connect besides the node's own (PLANHUB_ALLOWED_ORIGINS, comma-separated). */
    // Only http(s) has a tuple origin: any other scheme (or a bare "localhost:3000", read as one) has the origin
    // "null", which would admit every sandboxed and file:// page.
    allowedOrigins: z.array(z.url({ protocol: /^https?$/ })).default([]),
    /** Host names requests may be addressed to besides loopback ones (PLANHUB_ALLOWED_HOSTS, comma-separated). */
    // Compared with the Host header, which never carries a scheme or a path: an entry with one would match nothing.
    allowedHosts: z.array(z.string().refine(isHostHeader, 'must be a Host header value')).default([]),
    /**
     * Load balancers whose X-Forwarded-For names the client (PLANHUB_TRUSTED_PROXIES, comma-separated addresses or
     * CIDR ranges). Behind one, every client's TCP peer is the balancer, so the per-address caps and budgets would
     * count the whole deployment as one client; a header from any other peer is ignored.
     */
    trustedProxies: z
      .array(
        z
          .string()
          .refine(isProxyEntry, 'must be an IP address or a CIDR range such as 10.0.0.0/8')
          // In the schema, so a config handed to createServer is refused as one read from the environment is.
          .refine((entry) => !coversAFamily(entry), {
            message:
              'a range that covers every address trusts every client, which could then write any X-Forwarded-For ' +
              "and escape the per-address limits. List only the balancers' addresses or subnet",
            params: { explained: true },
          }),
      )
      .default([]),
    /** Longest token accepted (exp - iat), in seconds (PLANHUB_TOKEN_MAX_LIFETIME, e.g. 30d). */
    tokenMaxLifetimeSeconds: int(DEFAULT_TOKEN_MAX_LIFETIME_S),
    /** How often a node reads the shared revoked-token list to close live connections revoked on another node. */
    revocationCheckMs: int(2000),
    /** How long close() lets running calls finish before it disconnects the clients. */
    shutdownGraceMs: int(10_000),
    /** A step in progress whose plan has not changed for this long is flagged stalled (step_stalled, getWorkspace). */
    stallAfterMs: int(10 * 60 * 1000),
    /**
     * How long a connection cut as a slow consumer keeps its transport, so a client that reads again learns why
     * (the `disconnect_reason` event); then it is destroyed. What it holds meanwhile is bounded by outboundBytes.
     */
    slowConsumerGraceMs: int(5_000),
    /** How often a node renews its presence; its agents read as offline 3 beats after it dies. */
    presenceHeartbeatMs: int(2_000),
  })
  .refine((c) => c.redisUrl === undefined || c.redisClusterNodes === undefined, {
    path: ['redisClusterNodes'],
    message: 'a Redis Cluster (seed nodes) and a single Redis (REDIS_URL) cannot both be set; keep one',
    params: { explained: true },
  });
export type ServerConfig = z.infer<typeof ServerConfigSchema>;
export type ServerConfigInput = z.input<typeof ServerConfigSchema>;

/** "a, b" → ["a", "b"]; unset or empty → undefined, so the file or the default applies. */
const listFromEnv = (value: string | undefined): string[] | undefined => {
  const items = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return items.length > 0 ? items : undefined;
};

export { storeKindOf } from './config-storage.ts';

/** A key as written in a config object: `limits.outboundBytes`; a list's entry is quoted by the message instead. */
const keyOf = (path: readonly PropertyKey[]) =>
  (typeof path.at(-1) === 'number' ? path.slice(0, -1) : path).map(String).join('.');

/** A config given as an object (createServer): a refusal is a ConfigError naming the key, as configFromEnv's are. */
export const parseConfig = (input: ServerConfigInput = {}): ServerConfig => {
  const parsed = ServerConfigSchema.safeParse(input);
  if (!parsed.success) throw explainIssues(parsed.error, input, keyOf, ServerConfigSchema);
  return parsed.data;
};

/** The environment variable of each setting read from it (the limits' names come from limitEnvNames). */
export const ENV_NAMES: Readonly<Record<string, string>> = {
  port: 'PORT',
  host: 'HOST',
  redisUrl: 'REDIS_URL',
  redisPrefix: 'REDIS_PREFIX',
  storageType: 'PLANHUB_STORE',
  storagePath: 'PLANHUB_STORAGE_PATH',
  redisClusterNodes: 'PLANHUB_REDIS_CLUSTER_NODES',
  redisWaitReplicas: 'PLANHUB_REDIS_WAIT_REPLICAS',
  secret: 'PLANHUB_SECRET',
  metricsToken: 'PLANHUB_METRICS_TOKEN',
  logLevel: 'LOG_LEVEL',
  approvalPolicy: 'PLANHUB_APPROVAL_POLICY',
  eventRetention: 'PLANHUB_EVENT_RETENTION',
  finishedPlansKept: 'PLANHUB_FINISHED_PLANS_KEPT',
  stallAfterMs: 'PLANHUB_STALL_AFTER_MS',
  presenceHeartbeatMs: 'PLANHUB_PRESENCE_HEARTBEAT_MS',
  memoryEventBytes: 'PLANHUB_MEMORY_EVENT_BYTES',
  memoryStoreBytes: 'PLANHUB_MEMORY_STORE_BYTES',
  storeDeadlineMs: 'PLANHUB_STORE_DEADLINE_MS',
  allowedOrigins: 'PLANHUB_ALLOWED_ORIGINS',
  allowedHosts: 'PLANHUB_ALLOWED_HOSTS',
  trustedProxies: 'PLANHUB_TRUSTED_PROXIES',
  tokenMaxLifetimeSeconds: 'PLANHUB_TOKEN_MAX_LIFETIME',
};

/** A lifetime such as 30d, 12h or seconds; anything else is a ConfigError naming the variable. */
const lifetimeFromEnv = (value: string | undefined): number | undefined => {
  if (!value) return undefined;
  try {
    return parseTtl(value);
  } catch {
    throw new ConfigError(
      `PLANHUB_TOKEN_MAX_LIFETIME is ${JSON.stringify(value.slice(0, 80))}: allowed is a lifetime greater than 0 ` +
        'such as 30d, 12h, 15m or a whole number of seconds.',
    );
  }
};

/** Distinct characters an operator's secret needs: "aaaaaaaaaaaaaaaa" is 16 characters and no secret at all. */
/** Refuses secrets that pass the length rule but are trivially guessable (one repeated character, "1212…"). */
const checkSecretStrength = (env: NodeJS.ProcessEnv) => {
  for (const name of ['PLANHUB_SECRET', 'PLANHUB_METRICS_TOKEN']) {
    const value = env[name];
    if (value && value.trim() !== '' && value.length >= SECRET_MIN_LENGTH && secretVariety(value) < SECRET_VARIETY)
      throw new ConfigError(
        `${name} is too weak: it uses only ${secretVariety(value)} different characters; use at least ` +
          `${SECRET_MIN_LENGTH} ` +
          `characters with at least ${SECRET_VARIETY} different ones, e.g. the output of: openssl rand -base64 32.`,
      );
  }
};

/** Every variable a node reads: the settings, the limits and PLANHUB_CONFIG. */
export const settingEnvNames = (): string[] => [...Object.values(ENV_NAMES), ...limitEnvNames(), 'PLANHUB_CONFIG'];

/** The setting the store's directory came from (PLANHUB_STORAGE_PATH or the config file's key), for its errors. */
export const storagePathSetting = (env: NodeJS.ProcessEnv): string =>
  env.PLANHUB_STORAGE_PATH
    ? 'PLANHUB_STORAGE_PATH'
    : (withConfigFile(env, {}).fromFile('storagePath') ?? 'PLANHUB_STORAGE_PATH');

/**
 * `--help`: every variable a node reads with its default, from the same tables the parser uses, so it cannot drift
 * from what is read; what each means stays in one place, docs/operations.md.
 */
export const settingsHelp = (): string => {
  const defaults = ServerConfigSchema.parse({}) as Record<string, unknown>;
  const limits = defaults.limits as Record<string, unknown>;
  const shown = (value: unknown) =>
    value === undefined || (Array.isArray(value) && value.length === 0) ? 'unset' : JSON.stringify(value);
  const lines = [
    ...Object.entries(ENV_NAMES).map(([key, name]) => `  ${name} (default ${shown(defaults[key])})`),
    ...Object.keys(LimitsSchema.shape).map((key) => `  ${limitEnvName(key)} (default ${shown(limits[key])})`),
    '  PLANHUB_CONFIG (default ./planhub.json when present)',
  ];
  return [
    'PlanHub node: takes no command-line arguments. Settings come from the environment (and planhub.json, which',
    'the environment overrides); docs/operations.md explains each one.',
    '',
    ...lines,
    '',
  ].join('\n');
};

/**
 * The only reader of the environment (main.ts calls it); planhub.json fills in what the environment leaves unset.
 * Every refusal is a ConfigError naming the variable (or the file's key) and what is allowed.
 */
export const configFromEnv = (env: NodeJS.ProcessEnv): ServerConfig => {
  const { merged, fromFile, envNames } = withConfigFile(env, {
    port: env.PORT || undefined,
    host: env.HOST || undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: env.REDIS_PREFIX || undefined,
    storageType: env.PLANHUB_STORE || undefined,
    storagePath: env.PLANHUB_STORAGE_PATH ? resolve(env.PLANHUB_STORAGE_PATH) : undefined,
    redisClusterNodes: listFromEnv(env.PLANHUB_REDIS_CLUSTER_NODES),
    redisWaitReplicas: env.PLANHUB_REDIS_WAIT_REPLICAS || undefined,
    secret: env.PLANHUB_SECRET || undefined,
    metricsToken: env.PLANHUB_METRICS_TOKEN || undefined,
    logLevel: env.LOG_LEVEL || undefined,
    approvalPolicy: env.PLANHUB_APPROVAL_POLICY || undefined,
    eventRetention: env.PLANHUB_EVENT_RETENTION || undefined,
    finishedPlansKept: env.PLANHUB_FINISHED_PLANS_KEPT || undefined,
    stallAfterMs: env.PLANHUB_STALL_AFTER_MS || undefined,
    presenceHeartbeatMs: env.PLANHUB_PRESENCE_HEARTBEAT_MS || undefined,
    memoryEventBytes: env.PLANHUB_MEMORY_EVENT_BYTES || undefined,
    memoryStoreBytes: env.PLANHUB_MEMORY_STORE_BYTES || undefined,
    storeDeadlineMs: env.PLANHUB_STORE_DEADLINE_MS || undefined,
    allowedOrigins: listFromEnv(env.PLANHUB_ALLOWED_ORIGINS),
    allowedHosts: listFromEnv(env.PLANHUB_ALLOWED_HOSTS),
    trustedProxies: listFromEnv(env.PLANHUB_TRUSTED_PROXIES),
    tokenMaxLifetimeSeconds: lifetimeFromEnv(env.PLANHUB_TOKEN_MAX_LIFETIME),
    limits: limitsFromEnv(env),
  });
  checkEnvNames(env, settingEnvNames(), envNames);
  // The environment's choice of Redis replaces the file's whole choice: a URL from one and seed nodes from the other
  // would otherwise be refused as two stores.
  if (env.REDIS_URL && fromFile('redisClusterNodes')) delete merged.redisClusterNodes;
  if (env.PLANHUB_REDIS_CLUSTER_NODES && fromFile('redisUrl')) delete merged.redisUrl;
  const parsed = ServerConfigSchema.safeParse(merged);
  if (!parsed.success)
    throw explainIssues(
      parsed.error,
      merged,
      (path) => {
        const [head, sub] = path.map(String);
        if (head === 'limits' && sub) return limitEnvName(sub);
        return fromFile(head ?? '') ?? ENV_NAMES[head ?? ''] ?? path.join('.');
      },
      ServerConfigSchema,
    );
  checkSecretStrength(env);
  const nameOf = (key: string) => fromFile(key) ?? ENV_NAMES[key] ?? key;
  checkStorage(parsed.data, nameOf);
  return parsed.data;
};
