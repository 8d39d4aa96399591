/** The schemes socket.io-client dials; `planhub mcp` speaks HTTP only and allows fewer. */
export const SOCKET_SCHEMES: readonly string[] = ['http:', 'https:', 'ws:', 'wss:'];

/**
 * Why `url` cannot be a node's address, or undefined when it can. Checked before dialing because socket.io-client
 * reads an address without a scheme (`127.0.0.1:4000`) as the host "undefined" and only fails when the connect
 * deadline has passed, with a DNS error that names neither the address nor the mistake.
 */
export const nodeUrlProblem = (url: string, schemes: readonly string[] = SOCKET_SCHEMES): string | undefined => {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed !== undefined && schemes.includes(parsed.protocol)) return undefined;
  return `"${url}" is not a node's address; give one like http://127.0.0.1:4000.`;
};
