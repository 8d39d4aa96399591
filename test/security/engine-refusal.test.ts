import { request } from 'node:http';
import { connect } from '@planhub/client-sdk';
import { Manager } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';

/** Opens a transport connection and never connects a socket on it, so it holds an engine slot and nothing more. */
const bareTransport = (url: string) =>
  new Promise<Manager>((resolve, reject) => {
    const manager = new Manager(url, { transports: ['websocket'], reconnection: false, autoConnect: false });
    manager.open((err) => (err === undefined ? resolve(manager) : reject(err)));
  });

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** An engine.io handshake by hand: polling as a plain GET, websocket as an Upgrade; the node's answer if it refuses. */
const handshake = (url: string, transport: 'polling' | 'websocket') =>
  new Promise<Answer>((resolve, reject) => {
    const upgrade = transport === 'websocket';
    const req = request(`${url}/socket.io/?EIO=4&transport=${transport}`, {
      headers: upgrade
        ? {
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-version': '13',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          }
        : {},
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      reject(new Error('the node accepted the upgrade'));
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
  let h: Harness | undefined;
  const managers: Manager[] = [];
  afterEach(async () => {
    for (const m of managers.splice(0)) m.engine.close();
    await h?.close();
  });

  const fill = async (config: Parameters<typeof startHarness>[1], slots: number) => {
    h = await startHarness('memory', config);
    for (let i = 0; i < slots; i++) managers.push(await bareTransport(h.url));
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
