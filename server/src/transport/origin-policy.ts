import type { IncomingHttpHeaders } from 'node:http';
import { BlockList, isIP } from 'node:net';

export interface OriginPolicyConfig {
  secret?: string | undefined;
  /** Origins ("scheme://host[:port]") whose pages may connect besides the node's own. */
  allowedOrigins: readonly string[];
  /** Host names (or host:port) a request may be addressed to besides the loopback names. */
  allowedHosts: readonly string[];
}

/** Why a request is refused, or undefined when it may proceed; the reason is safe to show to the client. */
export type OriginCheck = (headers: IncomingHttpHeaders) => string | undefined;

const loopbackV4 = new BlockList();
loopbackV4.addSubnet('127.0.0.0', 8, 'ipv4');

/** Names that can only mean this machine, so a DNS rebinding attacker cannot make a browser send them. */
const isLoopbackName = (hostname: string): boolean => {
  const bare = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return loopbackV4.check(bare, 'ipv4');
  return bare === '::1';
};

const parseHost = (host: string): URL | undefined => {
  try {
    const url = new URL(`http://${host}`);
    return url.username || url.password || url.pathname !== '/' ? undefined : url;
  } catch {
    return undefined;
  }
};

/** "https://Example.com:443/" → "https://example.com", so configured and sent origins compare as strings. */
export const normalizeOrigin = (origin: string): string => new URL(origin).origin;

/**
 * Which browsers and host names may reach this node (cross-site WebSocket hijacking and DNS rebinding). Clients that
 * send no Origin (SDKs, CLIs, curl) are not browsers acting for another site and pass. A page may connect from the
 * node's own origin (the dashboard) or an origin the operator allows; in open mode — where any caller may claim any
 * identity — the request must also be addressed to a loopback name (or an allowed host), so a rebound name is refused.
 */
export const createOriginPolicy = (config: OriginPolicyConfig): OriginCheck => {
  const origins = new Set(config.allowedOrigins.map(normalizeOrigin));
  const hosts = new Set(config.allowedHosts.map((h) => h.toLowerCase()));
  const checkHost = config.secret === undefined || hosts.size > 0;
  // Loopback names in either mode: a rebound page is addressed by its own name, never by one of these, and the
  // balancer's and the image's health checks use them (refusing them in secret mode took every node out of service).
  const hostAllowed = (url: URL) => hosts.has(url.host) || hosts.has(url.hostname) || isLoopbackName(url.hostname);

  return (headers) => {
    const host = headers.host === undefined ? undefined : parseHost(headers.host);
    if (checkHost && (host === undefined || !hostAllowed(host)))
      return (
        `Requests must be addressed to this node by a loopback name (localhost, 127.0.0.1, [::1])` +
        `${hosts.size > 0 ? ` or one of PLANHUB_ALLOWED_HOSTS` : ''}; "${(headers.host ?? '').slice(0, 100)}" is not one.`
      );
    const origin = headers.origin;
    if (origin === undefined) return undefined;
    if (origins.has(origin)) return undefined;
    // https when a TLS proxy fronts the node; the Host is the same either way.
    const sameOrigin = host !== undefined && (origin === `http://${host.host}` || origin === `https://${host.host}`);
    if (sameOrigin) return undefined;
    return (
      `Pages from ${origin.slice(0, 100)} may not connect to this node: only its own pages (the dashboard)` +
      `${origins.size > 0 ? ' and the origins in PLANHUB_ALLOWED_ORIGINS' : ''} may, or clients that send no Origin ` +
      '(the SDK, the CLI). An operator can allow an origin with PLANHUB_ALLOWED_ORIGINS.'
    );
  };
};
