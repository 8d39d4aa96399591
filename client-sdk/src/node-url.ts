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
