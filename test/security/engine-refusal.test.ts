import { request } from 'node:http';
import { connect } from '@planhub/client-sdk';
import { Manager } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import type { startHarness } from '../helpers/servers.ts';
import { transportSuite } from './support/bare-transport.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * An engine.io handshake by hand: polling as a plain GET, websocket as an Upgrade, `extra` appended to the query.
 * An accepted upgrade is answered 101 and closed at once.
 */
const handshake = (url: string, transport: 'polling' | 'websocket', extra = '') =>
  new Promise<Answer>((resolve, reject) => {
    const upgrade = transport === 'websocket';
    const req = request(`${url}/socket.io/?EIO=4&transport=${transport}${extra}`, {
      headers: upgrade
        ? {
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-version': '13',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          }
        : {},
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });

/** Transport connections beyond twice the socket caps are refused before socket.io runs (engine-caps.ts). */
describe('a transport connection refused for a cap', () => {
  const { managers, start, open } = transportSuite();

  const fill = async (config: Parameters<typeof startHarness>[1], slots: number) => {
    const h = await start(config);
    for (let i = 0; i < slots; i++) expect((await open(h.url)).opened).toBe(true);
    return h.url;
  };

  it('is answered 429 with a JSON RESOURCE_EXHAUSTED naming the address, over polling and websocket', async () => {
    const url = await fill({ limits: { connectionsPerAddress: 1 } }, 2);
    for (const transport of ['polling', 'websocket'] as const) {
      const answer = await handshake(url, transport);
      expect({ transport, status: answer.status, type: answer.headers['content-type'] }).toEqual({
        transport,
        status: 429,
        type: 'application/json; charset=utf-8',
      });
      expect(answer.headers['retry-after']).toBe('1');
      expect(JSON.parse(answer.body)).toEqual({
        ok: false,
        error: {
          code: 'RESOURCE_EXHAUSTED',
          message: expect.stringMatching(/from 127\.0\.0\.1: it holds 2 \(limit 2\)/) as unknown,
        },
      });
    }
  });

  it('counts a handshake with an empty sid, or one whose last sid is empty, as the new session engine.io opens', async () => {
    const url = await fill({ limits: { connectionsPerAddress: 1 } }, 2);
    const answers = [];
    for (const extra of ['&sid=', '&sid=x&sid='])
      for (const transport of ['polling', 'websocket'] as const)
        answers.push({ extra, transport, status: (await handshake(url, transport, extra)).status });
    expect(answers).toEqual([
      { extra: '&sid=', transport: 'polling', status: 429 },
      { extra: '&sid=', transport: 'websocket', status: 429 },
      { extra: '&sid=x&sid=', transport: 'polling', status: 429 },
      { extra: '&sid=x&sid=', transport: 'websocket', status: 429 },
    ]);
  });

  it('lets a polling session that took the last slot upgrade to websocket', async () => {
    const url = await fill({ limits: { connectionsPerAddress: 1 } }, 1);
    const manager = new Manager(url, { transports: ['polling', 'websocket'], reconnection: false, autoConnect: false });
    managers.push(manager);
    const upgraded = new Promise<string>((resolve) => {
      manager.open((err) => {
        if (err !== undefined) return resolve(`open failed: ${err.message}`);
        manager.engine.once('upgrade', () => resolve(manager.engine.transport.name));
        manager.engine.once('upgradeError', (e: Error) => resolve(`upgrade failed: ${e.message}`));
      });
    });
    await expect(upgraded).resolves.toBe('websocket');
  });

  it("is answered 503 when the node's cap is the one reached", async () => {
    const url = await fill({ limits: { connectionsPerNode: 1 } }, 2);
    const answer = await handshake(url, 'websocket');
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body)).toMatchObject({ ok: false, error: { code: 'RESOURCE_EXHAUSTED' } });
  });

  it('lets the SDK give up in time with the status in its error, instead of hanging', async () => {
    const url = await fill({ limits: { connectionsPerAddress: 1 } }, 2);
    const refused = connect({ url, agentId: 'late', workspace: 'ws', connectTimeoutMs: 1500 });
    await expect(refused).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/429/) as unknown,
    });
  });
});
