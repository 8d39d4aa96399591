import type { IncomingMessage } from 'node:http';
import { PlanHubError } from '@planhub/shared';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

const hostnameOf = (host: string): string => {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return '';
  }
};

/**
 * DNS rebinding defence, as the MCP transport spec asks: a web page could otherwise reach a node on the user's
 * machine under a name it controls. A browser always sends Origin, so a request from another origin is refused; in
 * open mode (which trusts the URL's identity) the Host must also be a loopback name. MCP hosts send no Origin.
 */
const originHostOf = (origin: string): string | undefined => {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
};

export const checkOrigin = (req: IncomingMessage, openMode: boolean): void => {
  const host = req.headers.host ?? '';
  const origin = req.headers.origin;
  // "null" (an opaque origin) does not parse, so it is refused too.
  if (origin !== undefined && originHostOf(origin) !== host)
    throw new PlanHubError(
      'PERMISSION_DENIED',
      `Cross-origin MCP requests are refused (Origin ${origin.slice(0, 100)}).`,
    );
  if (openMode && !LOOPBACK_HOSTS.has(hostnameOf(host)))
    throw new PlanHubError(
      'PERMISSION_DENIED',
      'In open mode the MCP endpoint answers only loopback host names (127.0.0.1, localhost, [::1]).',
    );
};
