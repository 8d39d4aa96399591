import { openModeRefusal } from './auth/open-mode.ts';
import type { ServerConfig } from './config.ts';
import { configFromEnv } from './config.ts';
import { createServer } from './create-server.ts';
import { createLogger } from './logger.ts';
import { isOperatorError, listenFailure } from './ops/startup-errors.ts';

/** Operator mistakes end the process with one plain line on stderr and exit code 1: no stack, no JSON to decode. */
function refuse(message: string): never {
  process.stderr.write(`PlanHub cannot start: ${message}\n`);
  process.exit(1);
}

let config: ServerConfig;
try {
  config = configFromEnv(process.env);
} catch (err) {
  if (!isOperatorError(err)) throw err;
  refuse(err.message);
}
const log = createLogger(config.logLevel);
// A promise a library rejects on its own timer (ioredis's per-command timeout fires while a node is overloaded, and
// some of its internal promises have no handler) must not take down a node that serves every agent connected to it:
// the call that owned the command has its own deadline and answer. Logged loudly instead of crashing.
process.on('unhandledRejection', (reason: unknown) => {
  log.error({ err: reason }, 'unhandled promise rejection (the node keeps serving)');
});

const refusal = openModeRefusal(config);
if (refusal !== undefined) refuse(refusal);

const server = createServer(config, { log });
let url: string;
try {
  ({ url } = await server.listen());
} catch (err) {
  const failure = listenFailure(err, config);
  if (failure === undefined) throw err;
  await server.close();
  refuse(failure);
}
// Before the line that says the node listens: a supervisor (or a test) may signal it as soon as it reads that line.
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

// A wildcard bind is not an address a browser can open; the dashboard link points at this machine instead.
const dashboard = `${url.replace(/\/\/(0\.0\.0\.0|\[::\])(?=:)/, '//localhost')}/dashboard`;
log.info(
  { url, dashboard, store: server.services.store.kind, mode: config.secret ? 'secret' : 'open (loopback only)' },
  `PlanHub listening on ${url}; dashboard at ${dashboard}`,
);
