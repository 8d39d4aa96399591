import { request, type ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { serverFixture } from './support/server-fixture.ts';

/** The handshake's answer; `socket` is the open transport when it was accepted (101). */
interface Upgrade {
  status: number;
  body: string;
  socket?: Socket;
}

/** A websocket handshake by hand, as a browser sends it (with its page's Origin) or as an SDK does (without). */
const upgrade = (url: string, headers: Record<string, string> = {}) =>
  new Promise<Upgrade>((resolve, reject) => {
    const req: ClientRequest = request(`${url}/socket.io/?EIO=4&transport=websocket`, {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        'sec-websocket-version': '13',
        ...headers,
      },
    });
    req.on('upgrade', (_res, socket) => resolve({ status: 101, body: '', socket }));
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });

const FOREIGN = { origin: 'http://127.0.0.2:8080' };

/**
 * A browser's websocket upgrade is held to the origin policy before it opens a transport. Accepted and refused only at
 * its CONNECT, a page of another origin that opened websockets and never connected held an engine slot of its
 * visitor's address each, for 10 s, again and again: with `connectionsPerAddress` at 100, a page holding 200 locked
 * every local client of that address out.
 */
describe('websocket upgrades under the origin policy', () => {
  const { node, join } = serverFixture();

  it("refuses a foreign page's upgrade with the refusal's code and message, before any transport opens", async () => {
    const url = await node();
    const answer = await upgrade(url, FOREIGN);
    expect(answer.status).toBe(403);
    const { error } = JSON.parse(answer.body) as { error: { code: string; message: string } };
    expect(error).toMatchObject({ code: 'PERMISSION_DENIED', message: /^Pages from http:\/\/127\.0\.0\.2:8080/ });
  });

  it("admits the node's own pages and clients that send no Origin", async () => {
    const url = await node();
    for (const headers of [{ origin: url }, {}] as Record<string, string>[]) {
      const answer = await upgrade(url, headers);
      expect(answer.status).toBe(101);
      answer.socket?.destroy();
    }
  });

  it("cannot fill its visitor's address with websockets a local client then finds no room beside", async () => {
    // Engine slots per address are twice connectionsPerAddress: 6 here.
    const url = await node({ limits: { connectionsPerAddress: 3 } });
    const answers = await Promise.all(Array.from({ length: 8 }, () => upgrade(url, FOREIGN)));
    try {
      // While whatever the page got stays open.
      const local = await join(url, 'ws', 'local');
      expect(await local.call('getWorkspace', {})).toMatchObject({ ok: true });
    } finally {
      for (const a of answers) a.socket?.destroy();
    }
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(403));
  });
});
