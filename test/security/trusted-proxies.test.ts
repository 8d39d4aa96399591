import type { IncomingMessage } from 'node:http';
import { configFromEnv, createServer } from '@planhub/server';
import type { Socket } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../server/src/config-error.ts';
import { clientAddressOf } from '../../server/src/transport/client-address.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { connectFrom } from './support/bound-client.ts';
import { openAuth } from './support/raw-client.ts';

/** What clientAddressOf reads of a request: its TCP peer and its headers. */
const request = (peer: string, forwardedFor?: string) =>
  ({
    socket: { remoteAddress: peer },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage;

describe('the client address of a request', () => {
  const behind = clientAddressOf(['10.0.0.5', '172.16.0.0/12', 'fd00::/8']);

  it('is the peer when the peer is not a trusted proxy, whatever X-Forwarded-For says', () => {
    expect(behind(request('203.0.113.7', '198.51.100.1'))).toBe('203.0.113.7');
    expect(clientAddressOf([])(request('203.0.113.7', '198.51.100.1'))).toBe('203.0.113.7');
  });

  it('is the rightmost forwarded entry that is not a trusted proxy when a trusted proxy sends it', () => {
    expect(behind(request('10.0.0.5', '198.51.100.1'))).toBe('198.51.100.1');
    // The client wrote the first entry itself; only what the proxies appended counts.
    expect(behind(request('10.0.0.5', '192.0.2.66, 198.51.100.1'))).toBe('198.51.100.1');
    expect(behind(request('10.0.0.5', '198.51.100.1, 172.20.3.4'))).toBe('198.51.100.1');
    expect(behind(request('fd12::1', '2001:db8::9'))).toBe('2001:db8::9');
  });

  it('is the peer when a trusted proxy sends no header or a malformed one', () => {
    expect(behind(request('10.0.0.5'))).toBe('10.0.0.5');
    expect(behind(request('10.0.0.5', 'unknown'))).toBe('10.0.0.5');
    expect(behind(request('10.0.0.5', '198.51.100.1:4711'))).toBe('10.0.0.5');
    expect(behind(request('10.0.0.5', '198.51.100.1, , 172.20.3.4'))).toBe('10.0.0.5');
  });

  it('is the first entry when every hop is a trusted proxy', () => {
    expect(behind(request('10.0.0.5', '172.16.0.9, 10.0.0.5'))).toBe('172.16.0.9');
  });

  it('reads an IPv4 client of a dual-stack listener as its IPv4 address', () => {
    expect(behind(request('::ffff:10.0.0.5', '::ffff:198.51.100.1'))).toBe('198.51.100.1');
    expect(behind(request('::ffff:203.0.113.7'))).toBe('203.0.113.7');
  });
});

describe('PLANHUB_TRUSTED_PROXIES', () => {
  it('takes comma-separated addresses and CIDR ranges', () => {
    expect(configFromEnv({ PLANHUB_TRUSTED_PROXIES: '10.0.0.5, 172.16.0.0/12,fd00::/8' }).trustedProxies).toEqual([
      '10.0.0.5',
      '172.16.0.0/12',
      'fd00::/8',
    ]);
    expect(configFromEnv({}).trustedProxies).toEqual([]);
  });

  it.each(['10.0.0.0/33', 'haproxy', '10.0.0.0/8/1', '::1/129', '10.0.0.0/'])(
    'refuses %s, naming the variable and what it allows',
    (value) => {
      expect(() => configFromEnv({ PLANHUB_TRUSTED_PROXIES: `10.0.0.5,${value}` })).toThrow(
        new RegExp(`PLANHUB_TRUSTED_PROXIES is "${value.replace(/[./]/g, '\\$&')}": allowed is .*CIDR`),
      );
    },
  );

  it.each(['0.0.0.0/0', '::/0', '::ffff:0:0/96', '::/64'])(
    'refuses %s, which covers every IPv4 or IPv6 address, saying that it would trust every client',
    (value) => {
      expect(() => configFromEnv({ PLANHUB_TRUSTED_PROXIES: `10.0.0.5,${value}` })).toThrow(
        `PLANHUB_TRUSTED_PROXIES includes "${value}": a range that covers every address trusts every client`,
      );
      expect(() => clientAddressOf([value])).toThrow(/may not cover every address/);
    },
  );

  it.each(['0.0.0.0/0', '::/0'])(
    'refuses %s in a config object given to createServer as a ConfigError naming the key',
    (value) => {
      const build = () => createServer({ logLevel: 'silent', trustedProxies: ['10.0.0.5', value] });
      expect(build).toThrow(ConfigError);
      expect(build).toThrow(
        `trustedProxies includes "${value}": a range that covers every address trusts every client, which could ` +
          "then write any X-Forwarded-For and escape the per-address limits. List only the balancers' addresses " +
          'or subnet.',
      );
    },
  );

  it('takes wide ranges that still leave addresses out, and IPv4-mapped ranges', () => {
    const wide = ['0.0.0.0/1', '128.0.0.0/1', '::ffff:10.0.0.0/104', '2000::/3'];
    expect(configFromEnv({ PLANHUB_TRUSTED_PROXIES: wide.join(',') }).trustedProxies).toEqual(wide);
  });
});

describe('per-address caps on a node that trusts 127.0.0.1 as its proxy', () => {
  let h: Harness | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.close();
    await h?.close();
    h = undefined;
  });

  it('counts each client behind the proxy by its forwarded address, and a direct client by its own', async () => {
    h = await startHarness('memory', { trustedProxies: ['127.0.0.1'], limits: { connectionsPerAddress: 1 } });
    const url = h.url;
    const attempt = async (from: string, forwardedFor: string, n: number) => {
      const a = await connectFrom(url, from, openAuth('ws', `agent-${n}`), { 'x-forwarded-for': forwardedFor });
      if (a.ok) sockets.push(a.socket);
      return a.ok ? 'admitted' : a.error.message;
    };
    expect(await attempt('127.0.0.1', '198.51.100.1', 1)).toBe('admitted');
    expect(await attempt('127.0.0.1', '198.51.100.2', 2)).toBe('admitted');
    expect(await attempt('127.0.0.1', '198.51.100.1', 3)).toContain('198.51.100.1 already holds 1');
    // 127.0.0.5 is not a trusted proxy: what it says it forwards for is not read.
    expect(await attempt('127.0.0.5', '198.51.100.3', 4)).toBe('admitted');
    expect(await attempt('127.0.0.5', '198.51.100.4', 5)).toContain('127.0.0.5 already holds 1');
  });

  it('still counts a direct client by its own address, whatever addresses it claims to forward for', async () => {
    h = await startHarness('memory', { trustedProxies: ['127.0.0.1'], limits: { connectionsPerAddress: 2 } });
    const url = h.url;
    const attempt = async (n: number) => {
      const a = await connectFrom(url, '127.0.0.5', openAuth('ws', `spoofer-${n}`), {
        'x-forwarded-for': `198.51.100.${n}`,
      });
      if (a.ok) sockets.push(a.socket);
      return a;
    };
    expect((await attempt(1)).ok).toBe(true);
    expect((await attempt(2)).ok).toBe(true);
    const third = await attempt(3);
    expect(third.ok).toBe(false);
    expect(third.ok ? '' : third.error.message).toContain('127.0.0.5 already holds 2');
  });
});
