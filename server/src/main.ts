import { configFromEnv } from './config.ts';
import { createServer } from './create-server.ts';
import { createLogger } from './logger.ts';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

const config = configFromEnv(process.env);
const log = createLogger(config.logLevel);

if (config.secret === undefined && !LOOPBACK.has(config.host)) {
  log.fatal(
    { host: config.host },
    `Refusing to listen on ${config.host} in open mode: without a secret anyone could act as any agent. ` +
      'Set PLANHUB_SECRET (16+ characters) to require signed tokens, or bind to 127.0.0.1.',
  );
  process.exit(1);
}

const server = createServer(config, { log });
const { url } = await server.listen();
log.info(
  { url, store: server.services.store.kind, mode: config.secret ? 'secret' : 'open (loopback only)' },
  `PlanHub listening on ${url}`,
);

const shutdown = (signal: string) => {
  log.info({ signal }, 'shutting down');
  server.close().then(
    () => process.exit(0),
    (err: unknown) => {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    },
  );
};
process.once('SIGINT', () => shutdown('SIGINT'));
process.once('SIGTERM', () => shutdown('SIGTERM'));
