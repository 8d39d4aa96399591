import pino from 'pino';
import type { Logger } from 'pino';

/**
 * Where credentials can sit in a log object: handshake auth, headers, config. fast-redact wildcards match one level,
 * so the common nestings are listed explicitly.
 */
const REDACT_PATHS = [
  'token',
  '*.token',
  'auth',
  '*.auth',
  'secret',
  '*.secret',
  'password',
  '*.password',
  'authorization',
  'headers.authorization',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers.cookie',
  'redisUrl',
  '*.redisUrl',
];

/** URLs keep their host (useful when debugging) and lose their password; everything else is censored whole. */
const censor = (value: unknown): unknown =>
  typeof value === 'string' && /^rediss?:\/\//.test(value)
    ? value.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1[redacted]@')
    : '[redacted]';

/** The root logger; tokens and secrets never reach a log line. */
export const createLogger = (level: string, destination?: pino.DestinationStream): Logger =>
  pino({ level, redact: { paths: REDACT_PATHS, censor } }, destination);
