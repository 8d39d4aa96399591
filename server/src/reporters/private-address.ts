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

/** The eight 16-bit groups of a valid IPv6 address, with "::" expanded and a dotted IPv4 tail converted. */
const ipv6Groups = (address: string): number[] => {
  let text = address.toLowerCase();
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1] && dotted[2]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[2].split('.').map(Number);
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
};

const ipv4Of = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');

/**
 * The IPv4 address an IPv6 address stands for, in every spelling that reaches it: IPv4-mapped (::ffff:0:0/96),
 * IPv4-translated (::ffff:0:0:0/96), the deprecated IPv4-compatible ::/96 (::127.0.0.1, ::7f00:1), NAT64
 * (64:ff9b::/96) and 6to4 (2002::/16). Compared as numbers, so zero-padding and "::" placement do not matter.
 */
const embeddedIpv4 = (address: string): string | undefined => {
  const g = ipv6Groups(address);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const [g6 = 0, g7 = 0] = [g[6], g[7]];
  if (zeros(0, 5) && g[5] === 0xffff) return ipv4Of(g6, g7);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return ipv4Of(g6, g7);
  if (zeros(0, 6) && (g6 !== 0 || g7 > 1)) return ipv4Of(g6, g7);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return ipv4Of(g6, g7);
  if (g[0] === 0x2002) return ipv4Of(g[1] ?? 0, g[2] ?? 0);
  return undefined;
};

export const isPrivateAddress = (address: string): boolean => {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedIpv4(bare);
  return (v4 !== undefined && blocked.check(v4, 'ipv4')) || blocked.check(bare, 'ipv6');
};

/** Host names that always mean this machine, refused before any DNS lookup. */
export const isLocalHostname = (hostname: string): boolean => {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
};
