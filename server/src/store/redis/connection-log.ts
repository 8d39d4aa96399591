import type { Logger } from 'pino';
import { redactUrl } from '../../config-error.ts';
import type { CommandConnection } from './connect.ts';

/**
 * The last reason each named connection failed for, while it is failing. The store monitor and /readyz read it by
 * the connection's name (`planhub:<prefix>`): the Store seam carries no Redis errors, and a wrong password (WRONGPASS)
 * must not read as "unreachable" with its cause hidden at debug level.
 */
const failures = new Map<string, string>();

/** Why a connection failed, in a few words and without secrets: `ECONNREFUSED`, or Redis' own reply. */
export const failureReason = (err: Error): string => {
  const code = (err as NodeJS.ErrnoException).code;
  // A system error's message names the address (`connect ECONNREFUSED 10.0.0.5:6379`); its code says it all.
  if (typeof code === 'string' && /^E[A-Z0-9_]+$/.test(code)) return code;
  const text = err.message
    .replace(/rediss?:\/\/\S+/g, (url) => redactUrl(url))
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
};

/** The reason the connection named `name` last failed, while it has not connected since. */
export const lastConnectionFailure = (name: string): string | undefined => failures.get(name);

const nameOf = (connection: CommandConnection): string | undefined => {
  const options = connection.options as { connectionName?: string; redisOptions?: { connectionName?: string } };
  return options.connectionName ?? options.redisOptions?.connectionName;
};

/** Every connection has an error handler (an unhandled 'error' would crash the node); outages log once. */
export const logConnectionState = (
  connection: CommandConnection,
  log: Logger,
  name: string,
  isClosing: () => boolean,
) => {
  const key = nameOf(connection);
  let up = false;
  let lastReason: string | undefined;
  connection.on('ready', () => {
    if (!up) log.info({ connection: name }, 'Redis connected');
    up = true;
    lastReason = undefined;
    if (key !== undefined) failures.delete(key);
  });
  connection.on('error', (err: Error) => {
    const reason = failureReason(err);
    if (key !== undefined) failures.set(key, reason);
    if (up) log.error({ connection: name, reason }, `Redis connection lost (${reason}); reconnecting`);
    // A new reason is worth a line (a wrong password, a refused connection); the same one again on every retry is not.
    else if (reason !== lastReason) log.warn({ connection: name, reason }, `Redis connection failed: ${reason}`);
    else log.debug({ connection: name, reason }, 'Redis still unreachable');
    lastReason = reason;
    up = false;
  });
  connection.on('close', () => {
    if (up && !isClosing()) log.warn({ connection: name }, 'Redis connection closed; reconnecting');
    up = false;
  });
};
