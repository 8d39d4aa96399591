import { PlanHubError } from '@planhub/shared';

/** The schemes socket.io-client dials; `planhub mcp` speaks HTTP only and allows fewer. */
const SOCKET_SCHEMES: readonly string[] = ['http:', 'https:', 'ws:', 'wss:'];

/**
 * Why `url` cannot be a node's address, or undefined when it can. Checked before dialing because socket.io-client
 * reads anything that does not start exactly with a lowercase `http://`, `https://`, `ws://` or `wss://`
 * (`127.0.0.1:4000`, `HTTP://…`, `http:127.0.0.1:4000`, a leading space) as the host "undefined" and only fails when
 * the connect deadline has passed, with a DNS error that names neither the address nor the mistake; and it reads a
 * path (`…/mcp`) as a namespace the node refuses. `planhub mcp` talks to a path (/mcp) and allows one.
 */
export const nodeUrlProblem = (
  url: string,
  schemes: readonly string[] = SOCKET_SCHEMES,
  options: { path?: boolean } = {},
): string | undefined => {
  const scheme = /^([a-z]+:)\/\//.exec(url)?.[1];
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (scheme === undefined || parsed === undefined || !schemes.includes(scheme))
    return `"${url}" is not a node's address; give one like http://127.0.0.1:4000.`;
  if (!options.path && parsed.pathname !== '/')
    return `"${url}" has a path; a node's address is its origin alone, like http://127.0.0.1:4000.`;
  return undefined;
};

const kindOf = (url: unknown): string =>
  url === null ? 'null' : typeof url === 'object' ? 'an object' : `a ${typeof url}`;

const textOf = (url: unknown): string => {
  try {
    return JSON.stringify(url) ?? typeof url;
  } catch {
    return typeof url;
  }
};

const shown = (url: unknown): string =>
  url === undefined ? 'undefined (is the environment variable it comes from set?)' : `${textOf(url)} (${kindOf(url)})`;

/**
 * The node addresses `url` names: one, or a list to fail over between. Plain JS can pass anything (an unset
 * environment variable is undefined), which used to throw a TypeError without a code from deep in the client.
 */
export const nodeUrls = (url: unknown): readonly string[] => {
  const urls: readonly unknown[] | undefined = typeof url === 'string' ? [url] : Array.isArray(url) ? url : undefined;
  if (urls === undefined)
    throw new PlanHubError(
      'INVALID_ARGUMENT',
      `connect() needs url: a node's address like http://127.0.0.1:4000, or a list of them; got ${shown(url)}.`,
    );
  if (urls.length === 0) throw new PlanHubError('INVALID_ARGUMENT', 'connect() needs at least one url');
  for (const entry of urls) {
    const problem = nodeUrlProblem(entry as string);
    if (problem !== undefined) throw new PlanHubError('INVALID_ARGUMENT', `url ${problem}`);
  }
  return urls as readonly string[];
};
