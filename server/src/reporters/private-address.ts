import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook must not reach unless the operator allows it: loopback, private, link-local (cloud metadata
 * lives at 169.254.169.254), carrier-grade NAT, unique-local, multicast and reserved ranges. A server that POSTs
 * wherever its config says is otherwise a way into the network it runs in (SSRF).
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  // Deprecated site-local: still routed inside some networks.
  ['fec0::', 10],
  // Local-use NAT64 (RFC 8215): reaches whatever IPv4 address it embeds, private ones included.
  ['64:ff9b:1::', 48],
  ['ff00::', 8],
  ['2001:db8::', 32],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d or ::ffff:7f00:1) or NAT64 (64:ff9b::/96) address. */
const embeddedIpv4 = (address: string): string | undefined => {
  const lower = address.toLowerCase();
  const match = /^(?:::ffff:|64:ff9b::)(.+)$/.exec(lower);
  if (!match?.[1]) return undefined;
  const rest = match[1];
  if (isIP(rest) === 4) return rest;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(rest);
  if (!hex?.[1] || !hex[2]) return undefined;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
};

export const isPrivateAddress = (address: string): boolean => {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedIpv4(bare);
  return v4 !== undefined ? blocked.check(v4, 'ipv4') : blocked.check(bare, 'ipv6');
};

/** Host names that always mean this machine, refused before any DNS lookup. */
export const isLocalHostname = (hostname: string): boolean => {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
};
