import { request, type IncomingHttpHeaders } from 'node:http';
import { mintToken } from '@planhub/server';
import { describe, expect, it } from 'vitest';
import { endpointOf } from '../mcp/mcp-clients.ts';
import { initializeAnswer, initializeRequest } from '../mcp/raw-mcp.ts';
import { connectFrom } from './support/bound-client.ts';
import { openAuth } from './support/raw-client.ts';
import { serverFixture } from './support/server-fixture.ts';

const SECRET = 'mcp-origin-secret-0123456789-abcdef';
const DASHBOARD = 'https://dash.example.com';

/** What the socket.io door answers a handshake from a page of `origin`: "connected" or the refusal's code. */
const socketAnswer = async (url: string, origin: string): Promise<string> => {
  const attempt = await connectFrom(url, '127.0.0.1', openAuth('team', 'a'), { origin });
  if (!attempt.ok) {
    // A page's upgrade the origin policy refuses is answered 403 before socket.io runs (engine-origin-guard.ts).
    const { description } = attempt.error as { description?: { message?: unknown } };
    if (/Unexpected server response: 403/.test(String(description?.message))) return 'refused 403';
    return (attempt.error.data as { code?: string } | undefined)?.code ?? attempt.error.message;
  }
  attempt.socket.disconnect();
  return 'connected';
};

/**
 * The status and headers of one request, without waiting for its body (an event stream has no end); a JSON body is
 * sent as an MCP client sends it.
 */
const headersOf = (
  endpoint: URL,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; headers: IncomingHttpHeaders }> =>
  new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = request(endpoint, {
      method,
      headers: {
        ...(text === undefined
          ? {}
          : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }),
        accept: 'application/json, text/event-stream',
        ...headers,
      },
    });
    req.on('response', (res) => {
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
      res.destroy();
    });
    req.on('error', reject);
    req.end(text);
  });

const corsHeaders = (headers: IncomingHttpHeaders) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith('access-control-')));

/**
 * /mcp answers browsers and host names by the operator's origin policy, the one the socket.io door and the dashboard
 * follow: the two doors of a node must not disagree about who may reach it (it used to refuse every page origin but
 * the node's own, whatever PLANHUB_ALLOWED_ORIGINS said, and every non-loopback name in open mode).
 */
describe('/mcp under the origin policy', () => {
  const { started } = serverFixture();

  const openNode = async (config: { allowedOrigins?: string[]; allowedHosts?: string[] } = {}) => {
    const { url } = await started(config);
    return { endpoint: endpointOf(url, { workspace: 'team', agentId: 'a' }), port: new URL(url).port };
  };

  /** A refusal by the origin policy, in the shape every plain HTTP refusal of the node has. */
  const expectRefused = (answer: { status: number; contentType: string; text: string }, message: RegExp) => {
    expect(answer.status).toBe(403);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(JSON.parse(answer.text)).toEqual({
      ok: false,
      error: { code: 'PERMISSION_DENIED', message: expect.stringMatching(message) as unknown },
    });
  };

  it('admits a page whose origin is in PLANHUB_ALLOWED_ORIGINS and refuses one that is not', async () => {
    const { endpoint } = await openNode({ allowedOrigins: [DASHBOARD] });
    expect((await initializeAnswer(endpoint, { origin: DASHBOARD })).status).toBe(200);
    expectRefused(
      await initializeAnswer(endpoint, { origin: 'https://evil.example' }),
      /^Pages from https:\/\/evil\.example may not connect.*PLANHUB_ALLOWED_ORIGINS/,
    );
    // An origin differs by scheme and port too, not only by host name.
    expectRefused(await initializeAnswer(endpoint, { origin: 'http://dash.example.com' }), /may not connect/);
  });

  it('answers a page the same at /mcp as at the socket.io door', async () => {
    const { url } = await started({ allowedOrigins: [DASHBOARD] });
    const endpoint = endpointOf(url, { workspace: 'team', agentId: 'a' });
    for (const [origin, socket, mcp] of [
      [DASHBOARD, 'connected', 200],
      ['https://evil.example', 'refused 403', 403],
    ] as const) {
      expect(await socketAnswer(url, origin), origin).toBe(socket);
      expect((await initializeAnswer(endpoint, { origin })).status, origin).toBe(mcp);
    }
  });

  it('honours PLANHUB_ALLOWED_HOSTS in open mode and still refuses a name it does not list (DNS rebinding)', async () => {
    const { endpoint, port } = await openNode({ allowedHosts: ['planhub.internal'] });
    const named = `planhub.internal:${port}`;
    expect((await initializeAnswer(endpoint, { host: named })).status).toBe(200);
    expect((await initializeAnswer(endpoint, { host: named, origin: `http://${named}` })).status).toBe(200);
    expectRefused(
      await initializeAnswer(endpoint, { host: `rebound.example:${port}` }),
      /loopback name .* or one of PLANHUB_ALLOWED_HOSTS; "rebound\.example:\d+" is not one/,
    );
    // Allowing a page does not allow the names it could rebind.
    const listed = await openNode({ allowedOrigins: [DASHBOARD] });
    expectRefused(
      await initializeAnswer(listed.endpoint, { host: `dash.example.com:${listed.port}`, origin: DASHBOARD }),
      /loopback name/,
    );
  });

  it('refuses an opaque ("null") Origin, as a page opened from disk or a sandboxed frame sends, on a loopback host', async () => {
    const { endpoint, port } = await openNode({ allowedOrigins: [DASHBOARD] });
    expectRefused(await initializeAnswer(endpoint, { origin: 'null', host: `127.0.0.1:${port}` }), /^Pages from null/);
  });

  it('admits an allowed page in secret mode at a name in PLANHUB_ALLOWED_HOSTS, and checks that name', async () => {
    const { url } = await started({
      secret: SECRET,
      allowedOrigins: [DASHBOARD],
      allowedHosts: ['planhub.example.com'],
    });
    const endpoint = new URL('/mcp', url);
    const port = new URL(url).port;
    const token = await mintToken(SECRET, { workspace: 'team', agent_id: 'a', role: 'agent' }, '10m');
    const headers = { authorization: `Bearer ${token}`, origin: DASHBOARD };
    expect((await initializeAnswer(endpoint, { ...headers, host: 'planhub.example.com' })).status).toBe(200);
    expectRefused(
      await initializeAnswer(endpoint, { ...headers, host: `elsewhere.example:${port}` }),
      /PLANHUB_ALLOWED_HOSTS/,
    );
  });
});

/**
 * A browser sends a cross-origin POST with a JSON body, a bearer token or a session id only after a preflight, and lets
 * the page read the answer only if it names the page's origin. /mcp answered the preflight 400 with no CORS headers,
 * so pages of PLANHUB_ALLOWED_ORIGINS, admitted by the origin policy, still could not use it.
 */
describe('/mcp CORS for the pages of PLANHUB_ALLOWED_ORIGINS', () => {
  const { started } = serverFixture();
  const preflight = (origin: string) => ({
    origin,
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'authorization,content-type,mcp-protocol-version,mcp-session-id',
  });

  it('answers an allowed page’s preflight 204 with its origin, the MCP methods and headers, and Vary: Origin', async () => {
    const { url } = await started({ secret: SECRET, allowedOrigins: [DASHBOARD] });
    const answer = await headersOf(new URL('/mcp', url), 'OPTIONS', preflight(DASHBOARD));
    expect(answer.status).toBe(204);
    expect(corsHeaders(answer.headers)).toEqual({
      'access-control-allow-origin': DASHBOARD,
      'access-control-allow-methods': 'GET, POST, DELETE',
      'access-control-allow-headers':
        'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id',
      'access-control-expose-headers': 'mcp-session-id, mcp-protocol-version, planhub-event-cursor',
      'access-control-max-age': '7200',
    });
    expect(answer.headers.vary).toBe('Origin');
  });

  it('gives a page that is not allowed a 403 and no CORS headers, preflight or not', async () => {
    const { url } = await started({ secret: SECRET, allowedOrigins: [DASHBOARD] });
    const endpoint = new URL('/mcp', url);
    for (const origin of ['https://evil.example', 'null']) {
      const answers = [
        await headersOf(endpoint, 'OPTIONS', preflight(origin)),
        await headersOf(endpoint, 'POST', { origin }, initializeRequest),
      ];
      for (const answer of answers) {
        expect(answer.status, origin).toBe(403);
        expect(corsHeaders(answer.headers), origin).toEqual({});
      }
    }
  });

  it('lets an allowed page read every answer: the session it opened, its event stream and a refusal', async () => {
    const { url } = await started({ secret: SECRET, allowedOrigins: [DASHBOARD] });
    const endpoint = new URL('/mcp', url);
    const token = await mintToken(SECRET, { workspace: 'team', agent_id: 'a', role: 'agent' }, '10m');
    const readable = {
      'access-control-allow-origin': DASHBOARD,
      'access-control-expose-headers': 'mcp-session-id, mcp-protocol-version, planhub-event-cursor',
    };

    const opened = await headersOf(
      endpoint,
      'POST',
      { origin: DASHBOARD, authorization: `Bearer ${token}` },
      initializeRequest,
    );
    expect(opened.status).toBe(200);
    expect(corsHeaders(opened.headers)).toEqual(readable);
    expect(opened.headers.vary).toBe('Origin');
    const session = opened.headers['mcp-session-id'];
    expect(session).toEqual(expect.any(String));

    const stream = await headersOf(endpoint, 'GET', {
      origin: DASHBOARD,
      authorization: `Bearer ${token}`,
      'mcp-session-id': String(session),
      accept: 'text/event-stream',
    });
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    // Not `no-cache`: Chromium stores an aborted no-cache stream, and the session's DELETE then goes out twice.
    expect(stream.headers['cache-control']).toBe('no-store');
    expect(corsHeaders(stream.headers)).toEqual(readable);

    const refused = await headersOf(endpoint, 'POST', { origin: DASHBOARD }, initializeRequest);
    expect(refused.status).toBe(401);
    expect(corsHeaders(refused.headers)).toEqual(readable);
    expect(refused.headers.vary).toBe('Origin');

    const ended = await headersOf(endpoint, 'DELETE', {
      origin: DASHBOARD,
      authorization: `Bearer ${token}`,
      'mcp-session-id': String(session),
    });
    expect(ended.status).toBe(200);
    expect(corsHeaders(ended.headers)).toEqual(readable);
  });

  it('sends no CORS headers to the node’s own pages or to clients without an Origin', async () => {
    const { url } = await started({ allowedOrigins: [DASHBOARD] });
    const endpoint = endpointOf(url, { workspace: 'team', agentId: 'a' });
    const asked: Record<string, string>[] = [{}, { origin: new URL(url).origin }];
    for (const headers of asked) {
      const answer = await headersOf(endpoint, 'POST', headers, initializeRequest);
      expect(answer.status).toBe(200);
      expect(corsHeaders(answer.headers)).toEqual({});
    }
  });

  it('does not answer CORS on routes that are not for pages of other origins', async () => {
    const { url } = await started({ secret: SECRET, allowedOrigins: [DASHBOARD] });
    for (const path of ['/tokens/revoke', '/metrics', '/healthz']) {
      const answer = await headersOf(new URL(path, url), 'OPTIONS', preflight(DASHBOARD));
      expect(corsHeaders(answer.headers), path).toEqual({});
    }
  });
});
