import { parseConfig } from '@planhub/server';
import { describe, expect, it } from 'vitest';

const webhook = (url: string) => parseConfig({ reporters: [{ type: 'webhook', url }] });

/** Every IPv6 spelling that reaches an IPv4 loopback, private or metadata address is refused like the address. */
describe('webhook targets that spell IPv4 loopback in IPv6', () => {
  it.each([
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '0:0:0:0:0:ffff:7f00:1',
    '0000:0000:0000:0000:0000:ffff:7f00:0001',
    '::127.0.0.1',
    '::7f00:1',
    '0:0:0:0:0:0:7f00:1',
    '::ffff:0:127.0.0.1',
    '::ffff:0:7f00:1',
    '64:ff9b::127.0.0.1',
    '2002:7f00:1::',
    '::ffff:a9fe:a9fe',
    '::169.254.169.254',
    '::10.0.0.1',
  ])('refuses http://[%s]/ unless allow_private is set', (address) => {
    expect(() => webhook(`http://[${address}]/hook`)).toThrow(/loopback or private address.*allow_private/);
  });

  it.each(['::ffff:8.8.8.8', '::8.8.8.8', '2002:808:808::', '2001:4860:4860::8888'])(
    'still accepts the public address http://[%s]/',
    (address) => {
      expect(webhook(`http://[${address}]/hook`).reporters).toHaveLength(1);
    },
  );
});
