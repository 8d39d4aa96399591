import { lookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { isLocalHostname, isPrivateAddress } from './private-address.ts';

export class RefusedTarget extends Error {
  override readonly name = 'RefusedTarget';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * DNS resolution that refuses private addresses. It is the lookup the socket itself uses, so the address checked
 * is the address connected to: a name that resolves to a public address at config time and to 127.0.0.1 later
 * (DNS rebinding) is still refused.
 */
export const publicOnlyLookup = (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
  lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (bad) return callback(new RefusedTarget(`${hostname} resolves to private address ${bad.address}`), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    return first ? callback(null, first.address, first.family) : callback(new Error(`${hostname} has no address`), []);
  });
};

export interface PostOptions {
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivate: boolean;
}

/** One POST; resolves with the status code (the response body is read and discarded). */
export const postJson = (url: URL, body: string, options: PostOptions): Promise<number> =>
  new Promise((resolve, reject) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!options.allowPrivate && (isLocalHostname(host) || (isIP(host) !== 0 && isPrivateAddress(host)))) {
      reject(new RefusedTarget(`${host} is a loopback or private address`));
      return;
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...options.headers, 'content-length': Buffer.byteLength(body) },
        timeout: options.timeoutMs,
        ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
        res.once('error', reject);
      },
    );
    req.once('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    req.once('error', reject);
    req.end(body);
  });
