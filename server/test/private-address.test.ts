import { describe, expect, it } from 'vitest';
import { isLocalHostname, isPrivateAddress } from '../src/reporters/private-address.ts';
import { RefusedTarget, publicOnlyLookup } from '../src/reporters/webhook-post.ts';

describe('webhook target checks', () => {
  it('treats loopback, private, link-local, CGNAT, unique-local and mapped addresses as private', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.20',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.251',
      '::1',
      '[::1]',
      '::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1%eth0',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::10.0.0.1',
      'fec0::1',
      '64:ff9b:1::a00:1',
    ])
      expect(isPrivateAddress(address), address).toBe(true);
  });

  it('treats public addresses and host names as not private (names are checked when they resolve)', () => {
    for (const address of [
      '8.8.8.8',
      '172.15.255.255',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700:4700::1111',
      'example.com',
    ])
      expect(isPrivateAddress(address), address).toBe(false);
    expect(isLocalHostname('localhost')).toBe(true);
    expect(isLocalHostname('api.localhost.')).toBe(true);
    expect(isLocalHostname('localhost.example.com')).toBe(false);
  });

  it('refuses a name that resolves to a private address at connect time (DNS rebinding)', async () => {
    const err = await new Promise((resolve) => publicOnlyLookup('localhost', { all: true }, (e) => resolve(e)));
    expect(err).toBeInstanceOf(RefusedTarget);
  });
});
