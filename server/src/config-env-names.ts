import { closestName, ConfigError } from './config-error.ts';

/**
 * PLANHUB_* names other PlanHub programs read (the SDK and MCP bridge, the test suite, the compose file and HAProxy
 * config): an operator's shell may hold them for those, and they mean nothing to a node but are no misspelling.
 */
const OTHER_PROGRAMS = [
  'PLANHUB_URL',
  'PLANHUB_TOKEN',
  'PLANHUB_AS',
  'PLANHUB_AGENT',
  'PLANHUB_WORKSPACE',
  'PLANHUB_WAIT_SECONDS',
  'PLANHUB_DIALECTS',
  'PLANHUB_STRESS',
  'PLANHUB_SCREENSHOTS',
  'PLANHUB_TYPES',
  'PLANHUB_LB_ADDRESS',
  'PLANHUB_LB_BIND',
  'PLANHUB_SUBNET',
  'PLANHUB_IP_RANGE',
  'PLANHUB_DNS',
];
const OTHER_PREFIXES = ['PLANHUB_TEST_', 'PLANHUB_NODE_', 'PLANHUB_LIMIT_'];

/**
 * A PLANHUB_* variable the node does not `read` is refused, naming the setting it is closest to: misspelt
 * (PLANHUB_EVENT_RETENTON), it would leave the default in force without a word. Variables planhub.json names as a
 * webhook's secret_env are allowed; PLANHUB_LIMIT_* has its own check (limitsFromEnv).
 */
export const checkEnvNames = (env: NodeJS.ProcessEnv, read: readonly string[], allowed: readonly string[]) => {
  const settings = read.filter((name) => name.startsWith('PLANHUB_'));
  const known = new Set([...settings, ...OTHER_PROGRAMS, ...allowed]);
  const unknown = Object.keys(env).filter(
    (name) => name.startsWith('PLANHUB_') && !known.has(name) && !OTHER_PREFIXES.some((p) => name.startsWith(p)),
  );
  if (unknown.length === 0) return;
  const guesses = unknown.map((name) => `${name} (did you mean ${closestName(name, settings)}?)`);
  throw new ConfigError(
    `${guesses.join(', ')} ${unknown.length === 1 ? 'is not a PlanHub setting' : 'are not PlanHub settings'}; ` +
      'the node started with --help lists them, docs/operations.md explains them.',
  );
};
