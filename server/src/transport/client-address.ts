import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** The address a request is counted, charged and logged under. */
export type ClientAddressOf = (req: IncomingMessage) => string;

const MAPPED_V4 = '::ffff:';

/** `::ffff:10.0.0.7` (an IPv4 client of a dual-stack listener) as `10.0.0.7`, so one client is one key. */
const plain = (address: string): string =>
  address.startsWith(MAPPED_V4) && isIP(address.slice(MAPPED_V4.length)) === 4
    ? address.slice(MAPPED_V4.length)
    : address;

const familyOf = (address: string) => (isIP(address) === 6 ? ('ipv6' as const) : ('ipv4' as const));

/** One PLANHUB_TRUSTED_PROXIES entry, `10.0.0.5` or `172.16.0.0/12`, as a subnet; undefined if it is neither. */
const subnetOf = (entry: string) => {
  const [address = '', prefix, ...extra] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || extra.length > 0) return undefined;
  const bits = version === 4 ? 32 : 128;
  if (prefix !== undefined && (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits)) return undefined;
  return { address, prefix: prefix === undefined ? bits : Number(prefix), family: familyOf(address) };
};

export const isProxyEntry = (entry: string): boolean => subnetOf(entry) !== undefined;

const LAST_IPV6 = 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff';

/**
 * Whether a trusted range holds every IPv4 or every IPv6 address (`0.0.0.0/0`, `::/0`, `::ffff:0:0/96`, which an
 * IPv4 client matches as its mapped address): trusting it trusts every client, and any of them could then write its
 * own X-Forwarded-For and escape the per-address caps. A range is contiguous, so holding a family's first and last
 * address means holding all of it.
 */
export const coversAFamily = (entry: string): boolean => {
  const subnet = subnetOf(entry);
  if (subnet === undefined) return false;
  const list = new BlockList();
  list.addSubnet(subnet.address, subnet.prefix, subnet.family);
  return (
    (list.check('0.0.0.0', 'ipv4') && list.check('255.255.255.255', 'ipv4')) ||
    (list.check('::', 'ipv6') && list.check(LAST_IPV6, 'ipv6'))
  );
};

/**
 * The client behind a request: its TCP peer, unless the peer is one of `trusted` (the deployment's load balancers);
 * then the rightmost X-Forwarded-For entry that is not itself a trusted proxy. Each proxy appends the peer it saw,
 * so entries left of the last untrusted one were written by the client and prove nothing. A header from an
 * untrusted peer is never read, and a malformed one counts the request under its peer, as if it had none.
 */
export const clientAddressOf = (trusted: readonly string[]): ClientAddressOf => {
  const peerOf = (req: IncomingMessage) => plain(req.socket.remoteAddress ?? '');
  if (trusted.length === 0) return peerOf;
  const list = new BlockList();
  for (const entry of trusted) {
    const subnet = subnetOf(entry);
    if (subnet === undefined) throw new Error(`not an address or CIDR range: ${entry}`);
    // The config schema refuses these with the setting's name; this guards any other caller.
    if (coversAFamily(entry)) throw new Error(`a trusted proxy range may not cover every address: ${entry}`);
    list.addSubnet(subnet.address, subnet.prefix, subnet.family);
  }
  const isTrusted = (address: string) => isIP(address) !== 0 && list.check(address, familyOf(address));
  // Asked of one request by each cap and by the call budget: its header is read once.
  const known = new WeakMap<IncomingMessage, string>();
  const forwarded = (req: IncomingMessage): string => {
    const peer = peerOf(req);
    // Node joins repeated X-Forwarded-For lines into one string; the header's type allows an array all the same.
    const header = req.headers['x-forwarded-for'];
    if (!isTrusted(peer) || typeof header !== 'string') return peer;
    const hops = header.split(',').map((hop) => plain(hop.trim()));
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i] ?? '';
      if (isIP(hop) === 0) return peer;
      // Every hop trusted (a proxy's own request): the first of them is as close to a client as there is.
      if (!isTrusted(hop) || i === 0) return hop;
    }
    return peer;
  };
  return (req) => {
    let address = known.get(req);
    if (address === undefined) known.set(req, (address = forwarded(req)));
    return address;
  };
};
