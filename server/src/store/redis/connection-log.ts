import type { Logger } from 'pino';
import type { CommandConnection } from './connect.ts';

/** Every connection has an error handler (an unhandled 'error' would crash the node); outages log once. */
export const logConnectionState = (
  connection: CommandConnection,
  log: Logger,
  name: string,
  isClosing: () => boolean,
) => {
  let up = false;
  connection.on('ready', () => {
    if (!up) log.info({ connection: name }, 'Redis connected');
    up = true;
  });
  connection.on('error', (err: Error) => {
    if (up) log.error({ connection: name, reason: err.message }, 'Redis connection lost; reconnecting');
    else log.debug({ connection: name, reason: err.message }, 'Redis still unreachable');
    up = false;
  });
  connection.on('close', () => {
    if (up && !isClosing()) log.warn({ connection: name }, 'Redis connection closed; reconnecting');
    up = false;
  });
};
