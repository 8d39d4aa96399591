import { openModeRefusal } from './auth/open-mode.ts';
import { configFromEnv } from './config.ts';
import { createServer } from './create-server.ts';
import { createLogger } from './logger.ts';

const config = configFromEnv(process.env);
const log = createLogger(config.logLevel);

const refusal = openModeRefusal(config);
if (refusal !== undefined) {
  log.fatal({ host: config.host }, refusal);
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
