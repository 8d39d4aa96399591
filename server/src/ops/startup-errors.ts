import { ConfigError } from '../config-error.ts';

const codeOf = (err: unknown): string | undefined =>
  err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;

/**
 * What an operator reads when a node cannot listen: one sentence naming PORT or HOST, instead of a Node stack.
 * Undefined for failures that are not the operator's to fix (those keep their stack: they are bugs).
 */
export const listenFailure = (err: unknown, where: { host: string; port: number }): string | undefined => {
  const at = `${where.host}:${where.port} (HOST=${where.host}, PORT=${where.port})`;
  switch (codeOf(err)) {
    case 'EADDRINUSE':
      return `Port ${where.port} is already in use on ${where.host}: stop the process that holds it or set PORT to another port (PORT=0 picks a free one).`;
    case 'EACCES':
      return `Not allowed to listen on ${at}: ports below 1024 need privileges; use a port of 1024 or more.`;
    case 'EADDRNOTAVAIL':
      return `Cannot listen on ${at}: ${where.host} is not an address of this machine; use 127.0.0.1, 0.0.0.0 or one of its addresses.`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Cannot listen on ${at}: the host name ${where.host} does not resolve; use an IP address.`;
    default:
      return undefined;
  }
};

/** A startup refusal written for the operator (ConfigError, open-mode refusal), as opposed to a bug. */
export const isOperatorError = (err: unknown): err is Error => err instanceof ConfigError;
