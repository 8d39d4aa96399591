import type { z } from 'zod';

/**
 * A configuration a node cannot start with. Its message is written for the operator: it names the environment
 * variable or config-file key, says what is allowed, and main.ts prints it as one line without a stack.
 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Where a config key comes from, as the operator wrote it: `PORT`, or `storage_config.url in /etc/planhub.json`. */
export type SettingName = (path: readonly PropertyKey[]) => string;

/** What each setting accepts, in the operator's words (keyed by the config path's first segment). */
const ALLOWED: Record<string, string> = {
  port: 'a whole number from 0 to 65535 (0 picks a free port)',
  host: 'an address or host name to bind, e.g. 127.0.0.1 or 0.0.0.0',
  redisUrl: 'a redis:// or rediss:// URL, e.g. redis://redis:6379 (unset it for the in-memory store)',
  redisPrefix: 'a non-empty key prefix without { or }',
  storageType: 'one of memory, redis, file, hybrid (file and hybrid keep state durably in storagePath)',
  storagePath: 'a directory path (created if missing)',
  secret: 'at least 16 characters, not only whitespace',
  metricsToken: 'at least 16 characters, not only whitespace',
  logLevel: 'one of fatal, error, warn, info, debug, trace, silent',
  approvalPolicy: 'one of owner-or-user, user, auto',
  eventRetention: 'a whole number of events greater than 0',
  finishedPlansKept: 'a whole number of plans greater than 0',
  limits: 'a whole number greater than 0',
  trustedProxies:
    'comma-separated IP addresses or CIDR ranges of the load balancers in front of the nodes, e.g. 10.0.0.5 or ' +
    '172.16.0.0/12 (unset when clients connect directly)',
};

/** Values that must never be echoed back, even in an error. */
const SECRET_KEYS = new Set(['secret', 'metricsToken']);

/** A value as it may appear in an error: short, and a URL without its password. */
const shown = (value: unknown): string => {
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  try {
    const url = new URL(text);
    if (url.password) url.password = '***';
    text = url.href;
  } catch {
    // not a URL: shown as given
  }
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
};

const valueAt = (input: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>((at, key) => (at as Record<PropertyKey, unknown> | undefined)?.[key], input);

/** One line per refused setting: `PORT is "abc": allowed is a whole number from 0 to 65535 (0 picks a free port).` */
export const explainIssues = (error: z.ZodError, input: unknown, nameOf: SettingName): ConfigError => {
  const lines = error.issues.map((issue) => {
    const head = String(issue.path[0] ?? '');
    const name = nameOf(issue.path);
    const allowed = ALLOWED[head];
    if (SECRET_KEYS.has(head)) return `${name} is too weak: use ${allowed ?? 'a longer value'}.`;
    const value = valueAt(input, issue.path);
    const given = value === undefined ? 'missing' : `is ${shown(value)}`;
    return allowed ? `${name} ${given}: allowed is ${allowed}.` : `${name} ${given}: ${issue.message}.`;
  });
  return new ConfigError(lines.join(' '));
};
