import { openModeRefusal } from './auth/open-mode.ts';
import type { ServerConfig } from './config.ts';
import { configFromEnv, settingsHelp, storagePathSetting } from './config.ts';
import { createServer } from './create-server.ts';
import { createLogger } from './logger.ts';
import { isOperatorError, listenFailure } from './ops/startup-errors.ts';

/** Operator mistakes end the process with one plain line on stderr and exit code 1: no stack, no JSON to decode. */
function refuse(message: string): never {
  process.stderr.write(`PlanHub cannot start: ${message}\n`);
  process.exit(1);
}

// Settings come from the environment only: an argument such as `--port 5000` would otherwise start a node on the
// defaults while its operator believes it configured.
const args = process.argv.slice(2);
if (args.some((arg) => arg === '--help' || arg === '-h')) {
  process.stdout.write(settingsHelp());
  process.exit(0);
}
if (args.length > 0)
  refuse(
    `command-line arguments are not read (got ${JSON.stringify(args.join(' ').slice(0, 80))}); settings come from ` +
      'the environment and planhub.json, e.g. PORT=5000. --help lists them, docs/operations.md explains them.',
  );

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

let server: ReturnType<typeof createServer>;
try {
  server = createServer(config, { log });
} catch (err) {
  if (!isOperatorError(err)) throw err;
  // The store says `storage_path`; the operator may have set PLANHUB_STORAGE_PATH instead.
  refuse(err.message.replace(/\bstorage_path\b(?=[ ,.;]|$)/g, storagePathSetting(process.env)));
}
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
