import { request } from 'node:http';
import type { PlanHubServer, ServerConfigInput } from '@planhub/server';
import { createServer, mintToken } from '@planhub/server';
import { io, type Socket } from 'socket.io-client';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { uniquePrefix } from '../helpers/servers.ts';
import { initializeRequest, listToolsRequest, rawMcp } from '../mcp/raw-mcp.ts';

const SECRET = 'lifetime-secret-0123456789-abcdef';
const nowS = () => Math.floor(Date.now() / 1000);
const claims = { workspace: 'ws', agent_id: 'a1', role: 'agent' } as const;

type Handshake = { socket: Socket } | { error: Error & { data?: { code: string; message: string } } };

const handshake = (url: string, token: string) =>
  new Promise<Handshake>((resolve) => {
    const socket = io(url, { transports: ['websocket'], reconnection: false, forceNew: true, auth: { token } });
    socket.once('connect', () => resolve({ socket }));
    socket.once('connect_error', (error) => {
      socket.disconnect();
      resolve({ error });
    });
  });

const connected = async (url: string, token: string): Promise<Socket> => {
  const shake = await handshake(url, token);
  if ('error' in shake) throw shake.error;
  return shake.socket;
};

const refusal = async (url: string, token: string) => {
  const shake = await handshake(url, token);
  if ('socket' in shake) {
    shake.socket.disconnect();
    throw new Error('the handshake was admitted');
  }
  return shake.error;
};

const disconnected = (socket: Socket) =>
  new Promise<string>((resolve) => {
    if (socket.disconnected) resolve('already');
    socket.once('disconnect', (reason) => resolve(reason));
  });

const revoke = (url: string, token: string) =>
  new Promise<{ status: number; body: { ok: boolean; result?: { jti: string } } }>((resolve, reject) => {
    const req = request(`${url}/tokens/revoke`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    req.once('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) as never }));
    });
    req.once('error', reject);
    req.end(JSON.stringify({ token }));
  });

describe('tokens hold for the life of the connection only while valid', () => {
  const nodes: PlanHubServer[] = [];
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.disconnect();
    for (const n of nodes.splice(0)) await n.close();
  });
  const start = async (config: ServerConfigInput = {}) => {
    const node = createServer({ port: 0, logLevel: 'silent', secret: SECRET, ...config });
    nodes.push(node);
    return (await node.listen()).url;
  };

  it('disconnects a connection when its token expires, and the token cannot reconnect', async () => {
    const url = await start();
    // Issued 8 s ago for 10 s: one to two seconds left (nowS rounds down).
    const token = await mintToken(SECRET, claims, 10, nowS() - 8);
    const socket = await connected(url, token);
    sockets.push(socket);
    expect(await disconnected(socket)).toBe('io server disconnect');
    expect((await refusal(url, token)).message).toMatch(/Token expired/);
  });

  it('refuses a token issued in the future, beyond a few seconds of clock skew', async () => {
    const url = await start();
    const future = await mintToken(SECRET, claims, '1h', nowS() + 600);
    expect((await refusal(url, future)).message).toMatch(/issued in the future/);
    const skewed = await mintToken(SECRET, claims, '1h', nowS() + 2);
    sockets.push(await connected(url, skewed));
  });

  it('refuses a token that lives longer than the configured maximum', async () => {
    const url = await start({ tokenMaxLifetimeSeconds: 3600 });
    const long = await mintToken(SECRET, claims, '2h');
    const error = await refusal(url, long);
    expect(error.data).toMatchObject({ code: 'UNAUTHENTICATED', message: expect.stringMatching(/3600 s/) as unknown });
    sockets.push(await connected(url, await mintToken(SECRET, claims, '1h')));
  });

  it('closes a revoked token’s connections and refuses it from then on (memory store)', async () => {
    const url = await start();
    const token = await mintToken(SECRET, claims, '1h');
    const other = await mintToken(SECRET, claims, '1h');
    const socket = await connected(url, token);
    const bystander = await connected(url, other);
    sockets.push(socket, bystander);
    const gone = disconnected(socket);
    expect(await revoke(url, token)).toMatchObject({ status: 200, body: { ok: true } });
    expect(await gone).toBe('io server disconnect');
    expect((await refusal(url, token)).message).toMatch(/revoked/);
    expect(bystander.connected).toBe(true);
  });

  it('holds MCP requests to the same lifetime and revocations as socket handshakes', async () => {
    const url = await start({ tokenMaxLifetimeSeconds: 3600 });
    const endpoint = new URL('/mcp', url);
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const refusedWith = (answer: { status: number; text: string }) => ({
      status: answer.status,
      message: (JSON.parse(answer.text) as { error: { message: string } }).error.message,
    });
    const long = await mintToken(SECRET, claims, '2h');
    expect(refusedWith(await rawMcp(endpoint, initializeRequest, bearer(long)))).toMatchObject({
      status: 401,
      message: expect.stringMatching(
        /^UNAUTHENTICATED: Token lives longer than this server accepts \(3600 s/,
      ) as unknown,
    });
    const token = await mintToken(SECRET, claims, '1h');
    const opened = await rawMcp(endpoint, initializeRequest, bearer(token));
    expect(opened.status).toBe(200);
    const session = { 'mcp-session-id': opened.sessionId ?? '' };
    expect((await rawMcp(endpoint, listToolsRequest, { ...session, ...bearer(token) })).status).toBe(200);
    expect(await revoke(url, token)).toMatchObject({ status: 200, body: { ok: true } });
    // A revoked token opens nothing, and the session it last spoke for is closed: a fresh token finds it gone.
    expect(refusedWith(await rawMcp(endpoint, initializeRequest, bearer(token)))).toEqual({
      status: 401,
      message: 'UNAUTHENTICATED: Token has been revoked; mint a new one.',
    });
    const fresh = await mintToken(SECRET, claims, '1h');
    expect((await rawMcp(endpoint, listToolsRequest, { ...session, ...bearer(fresh) })).status).toBe(404);
  });

  it('closes an MCP session when the token of its latest request expires', async () => {
    const url = await start();
    const endpoint = new URL('/mcp', url);
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const short = await mintToken(SECRET, claims, 2);
    const opened = await rawMcp(endpoint, initializeRequest, bearer(short));
    expect(opened.status).toBe(200);
    const session = { 'mcp-session-id': opened.sessionId ?? '' };
    // Live under the short token until it expires: a node that dropped the session at once would fail here.
    expect((await rawMcp(endpoint, listToolsRequest, { ...session, ...bearer(short) })).status).toBe(200);
    // Nothing renews it (a request with a fresher token would): it is closed at the short token's exp, as a socket
    // connection is, and its event notifications end with it.
    await new Promise((resolve) => setTimeout(resolve, 3500));
    const fresh = await mintToken(SECRET, claims, '1h');
    expect((await rawMcp(endpoint, listToolsRequest, { ...session, ...bearer(fresh) })).status).toBe(404);
  });

  it('shares revocations across nodes on Redis: revoked on one node, closed and refused on the other', async () => {
    const shared = { redisUrl: inject('redisUrl'), redisPrefix: uniquePrefix(), revocationCheckMs: 50 };
    const urlA = await start(shared);
    const urlB = await start(shared);
    const token = await mintToken(SECRET, claims, '1h');
    const onB = await connected(urlB, token);
    sockets.push(onB);
    const endpointB = new URL('/mcp', urlB);
    const bearer = { authorization: `Bearer ${token}` };
    const opened = await rawMcp(endpointB, initializeRequest, bearer);
    const session = { 'mcp-session-id': opened.sessionId ?? '' };
    // B looks the token up when the session opens only: from then on it relies on hearing of a revocation.
    expect((await rawMcp(endpointB, listToolsRequest, { ...session, ...bearer })).status).toBe(200);
    const gone = disconnected(onB);
    const answer = await revoke(urlA, token);
    expect(answer).toMatchObject({ status: 200, body: { ok: true, result: { jti: expect.any(String) as unknown } } });
    expect(await gone).toBe('io server disconnect');
    expect((await refusal(urlB, token)).message).toMatch(/revoked/);
    // B heard of it (the socket went): the session's next request is refused as revoked, and the session is gone.
    const next = await rawMcp(endpointB, listToolsRequest, { ...session, ...bearer });
    expect([next.status, next.text]).toEqual([401, expect.stringContaining('Token has been revoked') as unknown]);
    const fresh = { authorization: `Bearer ${await mintToken(SECRET, claims, '1h')}` };
    expect((await rawMcp(endpointB, listToolsRequest, { ...session, ...fresh })).status).toBe(404);
    expect(await revoke(urlB, 'not-a-token')).toMatchObject({
      status: 401,
      body: { ok: false, error: { code: 'UNAUTHENTICATED' } },
    });
  });
});
