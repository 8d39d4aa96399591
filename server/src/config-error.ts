import { z } from 'zod';

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

/** Edits (insert, delete, replace) between two names: how far a misspelling is from what was meant. */
const distance = (a: string, b: string): number => {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(
        (row[j] ?? 0) + 1,
        (next[j - 1] ?? 0) + 1,
        (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    row = next;
  }
  return row[b.length] ?? 0;
};

/** The known name nearest to `name`, for "did you mean …". */
export const closestName = (name: string, known: readonly string[]): string | undefined =>
  known.reduce<{ name?: string; d: number }>(
    (best, candidate) => {
      const d = distance(name, candidate);
      return d < best.d ? { name: candidate, d } : best;
    },
    { d: Infinity },
  ).name;

/** Where a config key comes from, as the operator wrote it: `PORT`, or `storage_config.url in /etc/planhub.json`. */
export type SettingName = (path: readonly PropertyKey[]) => string;

/**
 * What a setting accepts, in the operator's words (keyed by the config path's first segment), where its schema alone
 * cannot say it well: a string's form, or why a number has its range. Numbers and enums without an entry are
 * described from the schema (allowedBySchema), so a new setting answers in the same form without one.
 */
const ALLOWED: Record<string, string> = {
  port: 'a whole number from 0 to 65535 (0 picks a free port)',
  host: 'an address or host name to bind, e.g. 127.0.0.1, 0.0.0.0 or :: (IPv6 without brackets; the port is PORT)',
  redisUrl: 'a redis:// or rediss:// URL, e.g. redis://redis:6379 (unset it for the in-memory store)',
  redisClusterNodes: 'host:port seed nodes of a Redis Cluster, e.g. 10.0.0.1:7000 (IPv6 as [fd00::1]:7000)',
  redisPrefix: 'a non-empty key prefix without { or }',
  storageType: 'one of memory, redis, file, hybrid (file and hybrid keep state durably in storagePath)',
  storagePath: 'a directory path (created if missing)',
  secret: 'at least 16 characters, not only whitespace',
  metricsToken: 'at least 16 characters, not only whitespace',
  eventRetention: 'a whole number of events greater than 0',
  finishedPlansKept: 'a whole number of plans greater than 0',
  memoryEventBytes: 'a whole number of bytes greater than 0, e.g. 268435456 (256 MiB)',
  memoryStoreBytes:
    'a whole number of bytes greater than 0, e.g. 1073741824 (1 GiB); keep it well under the heap ' +
    '(--max-old-space-size) and above PLANHUB_MEMORY_EVENT_BYTES',
  allowedOrigins:
    'origins such as https://dash.example.com or http://localhost:5173 (http or https, host, optional port)',
  allowedHosts:
    'host names or addresses as a Host header carries them, optionally with :port, such as dash.example.com, ' +
    'planhub.internal:4000 or [fd00::1]:4000 (IPv6 in brackets; no scheme, path, wildcard or :80, which clients omit)',
  trustedProxies:
    'comma-separated IP addresses or CIDR ranges of the load balancers in front of the nodes, e.g. 10.0.0.5 or ' +
    '172.16.0.0/12 (unset when clients connect directly)',
};

/** The parts of a JSON Schema that say what a setting accepts. */
interface SchemaNode {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minLength?: number;
  minItems?: number;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  oneOf?: SchemaNode[];
  anyOf?: SchemaNode[];
}

/** A key's schema; in a union (planhub.json's reporters) the first variant that has the key. */
const childOf = (node: SchemaNode | undefined, key: PropertyKey): SchemaNode | undefined => {
  if (node === undefined) return undefined;
  if (typeof key === 'number') return node.items;
  const variants = node.oneOf ?? node.anyOf;
  if (variants) return variants.map((variant) => childOf(variant, key)).find((child) => child !== undefined);
  const extra = typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
  return node.properties?.[String(key)] ?? extra;
};

const nodeAt = (root: SchemaNode, path: readonly PropertyKey[]): SchemaNode | undefined =>
  path.reduce<SchemaNode | undefined>(childOf, root);

/** `.int()` alone bounds a number by the safe integers, which is no limit an operator needs to hear about. */
const bound = (value: number | undefined) =>
  value !== undefined && Math.abs(value) < Number.MAX_SAFE_INTEGER ? value : undefined;

const numberAllowed = (node: SchemaNode) => {
  const kind = node.type === 'integer' ? 'a whole number' : 'a number';
  const [min, over, max] = [bound(node.minimum), bound(node.exclusiveMinimum), bound(node.maximum)];
  if (min !== undefined && max !== undefined) return `${kind} from ${min} to ${max}`;
  const upTo = max === undefined ? '' : ` and at most ${max}`;
  if (over !== undefined) return `${kind} greater than ${over}${upTo}`;
  if (min !== undefined) return `${kind} of at least ${min}${upTo}`;
  return max === undefined ? kind : `${kind} of at most ${max}`;
};

/**
 * "a whole number from 0 to 16", "one of a, b", "a list of …": read from the setting's schema. A string's format
 * (a URL, a pattern) is left to the schema's own message, which says it in words written for it.
 */
const allowedBySchema = (node: SchemaNode | undefined, issue: z.core.$ZodIssue): string | undefined => {
  if (node?.enum) return `one of ${node.enum.map(String).join(', ')}`;
  if (node?.type === 'integer' || node?.type === 'number') return numberAllowed(node);
  if (node?.type === 'boolean') return 'true or false';
  if (node?.type === 'array') {
    const items = allowedBySchema(node.items, issue);
    const some = node.minItems ? ` of at least ${node.minItems}` : '';
    return items === undefined ? undefined : `a list${some}, each ${items}`;
  }
  if (node?.type === 'object') return 'an object';
  if (node?.type === 'string' && (issue.code === 'invalid_type' || issue.code === 'too_small'))
    return node.minLength && node.minLength > 1 ? `text of at least ${node.minLength} characters` : 'non-empty text';
  return undefined;
};

/** Values that must never be echoed back, even in an error (a webhook's `secret` in planhub.json too). */
const SECRET_KEYS = new Set(['secret', 'metricsToken']);

/** A config object given to createServer may hold what JSON cannot write (a function, a BigInt, a cycle). */
const jsonOrString = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
};

/** Query parameters that carry credentials: ioredis reads every one of a URL's parameters as a connection option. */
const CREDENTIAL_PARAM = /pass|user|secret|token|auth|cred|key/i;

/** Credentials written in a URL the WHATWG parser refuses (ioredis parses more leniently), masked by pattern. */
const maskByPattern = (text: string) =>
  text
    .replace(/^((?:[a-z][a-z0-9+.-]*:)?\/\/)?([^/?#]*)@/i, (_all, scheme: string | undefined, auth: string) => {
      const colon = auth.indexOf(':');
      return `${scheme ?? ''}${colon === -1 ? '***' : `${auth.slice(0, colon)}:***`}@`;
    })
    .replace(/([?&;])([^=&#;]*)=([^&#;]*)/g, (all, sep: string, name: string) =>
      CREDENTIAL_PARAM.test(name) ? `${sep}${name}=***` : all,
    );

/**
 * A URL as logs and errors may show it: every place a client reads a credential from is masked (the password, a
 * user name written alone, which is usually a password without its colon, and credential query parameters such as
 * `?password=`), so a Redis URL can be logged whichever way the operator wrote its password.
 */
export const redactUrl = (text: string): string => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return maskByPattern(text);
  }
  let changed = false;
  if (url.password) {
    url.password = '***';
    changed = true;
  } else if (url.username) {
    url.username = '***';
    changed = true;
  }
  for (const name of [...url.searchParams.keys()])
    if (CREDENTIAL_PARAM.test(name)) {
      url.searchParams.set(name, '***');
      changed = true;
    }
  // Otherwise the value stays as typed: URL's own spelling ("http://0.0.0.0/") is not what the operator wrote.
  return changed ? url.href : text;
};

/** A value as it may appear in an error: short, and a URL without its credentials. */
const shown = (value: unknown): string => {
  // A list is shown as the operator wrote it in the environment, not as the JSON it was parsed into (an empty one
  // can only come from planhub.json, and would read as nothing).
  const list = Array.isArray(value) && value.length > 0;
  const text = redactUrl(typeof value === 'string' ? value : list ? value.map(String).join(',') : jsonOrString(value));
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
};

const valueAt = (input: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>((at, key) => (at as Record<PropertyKey, unknown> | undefined)?.[key], input);

/**
 * One line per refused setting: `PORT is "abc": allowed is a whole number from 0 to 65535 (0 picks a free port).`
 * A refinement that relates two settings marks itself `params: { explained: true }` and is shown as written (one
 * on an entry of a list: `PLANHUB_TRUSTED_PROXIES includes "0.0.0.0/0": …`).
 * `allowed` overrides the schema's description per first path segment (ALLOWED for the server's settings).
 */
export const explainIssues = (
  error: z.ZodError,
  input: unknown,
  nameOf: SettingName,
  schema: z.ZodType,
  allowed: Readonly<Record<string, string>> = ALLOWED,
): ConfigError => {
  const root = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as SchemaNode;
  const lines = error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const at = nodeAt(root, issue.path);
      // In a union (a reporter entry) the keys of the entry's own kind: the variant whose constants it matches.
      const entry = valueAt(input, issue.path) as Record<string, unknown> | undefined;
      const variant = (at?.oneOf ?? at?.anyOf)?.find((v) =>
        Object.entries(v.properties ?? {}).every(([key, p]) => p.const === undefined || p.const === entry?.[key]),
      );
      const known = Object.keys((variant ?? at)?.properties ?? {});
      const names = issue.keys.map((key) => nameOf([...issue.path, key])).join(', ');
      return `${names} ${issue.keys.length === 1 ? 'is not a setting' : 'are not settings'}: allowed are ${known.join(', ')}.`;
    }
    const head = String(issue.path[0] ?? '');
    const name = nameOf(issue.path);
    const value = valueAt(input, issue.path);
    const given = value === undefined ? 'missing' : `is ${shown(value)}`;
    if (issue.code === 'custom' && issue.params?.explained === true) {
      // One entry of a list setting: the operator wrote the whole list, so "is" would misquote it.
      const entry = typeof issue.path.at(-1) === 'number' && value !== undefined;
      return `${name} ${entry ? `includes ${shown(value)}` : given}: ${issue.message}.`;
    }
    const options = issue.code === 'invalid_union' && 'options' in issue ? (issue.options as unknown[]) : undefined;
    const accepted =
      allowed[head] ??
      (options ? `one of ${options.map(String).join(', ')}` : allowedBySchema(nodeAt(root, issue.path), issue));
    if (issue.path.some((key) => SECRET_KEYS.has(String(key))))
      return `${name} is too weak: use ${accepted ?? 'a longer value'}.`;
    return accepted ? `${name} ${given}: allowed is ${accepted}.` : `${name} ${given}: ${issue.message}.`;
  });
  return new ConfigError(lines.join(' '));
};
