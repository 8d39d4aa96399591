import pino from 'pino';
import type { Logger } from 'pino';

/** The root logger; tokens and secrets never reach a log line. */
export const createLogger = (level: string, destination?: pino.DestinationStream): Logger =>
  pino(
    {
      level,
      redact: {
        paths: ['token', '*.token', 'auth.token', 'secret', '*.secret', 'headers.authorization'],
        censor: '[redacted]',
      },
    },
    destination,
  );
