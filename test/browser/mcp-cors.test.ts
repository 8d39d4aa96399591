import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { createServer, mintToken, type PlanHubServer } from '@planhub/server';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite } from './chromium.ts';

const SECRET = 'mcp-cors-secret-0123456789-abcdefgh';

/** What a page got from its MCP exchange with the node, or how its fetch failed. */
type Exchange =
  | { ok: true; session: string; initialized: number; tools: string[]; stream: number; deleted: number }
  | { ok: false; error: string; message: string };

/**
 * In the page: the Streamable HTTP exchange an MCP client runs, with fetch: initialize, read the session id from the
 * answer's headers, notifications/initialized, tools/list on the session, open its event stream, end it.
 */
const mcpExchange = (page: Page, endpoint: string, token: string): Promise<Exchange> =>
  page.evaluate(
    async ({ endpoint, token, protocolVersion }): Promise<Exchange> => {
      const auth = { authorization: `Bearer ${token}` };
      const post = (body: object, headers: Record<string, string> = {}) =>
        fetch(endpoint, {
          method: 'POST',
          headers: {
            ...auth,
            ...headers,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify(body),
        });
      // The answer comes as JSON or as one SSE message, as the server chooses.
      const result = async <T>(res: Response): Promise<T> => {
        const text = await res.text();
        const json = res.headers.get('content-type')?.startsWith('text/event-stream')
          ? (text
              .split('\n')
              .filter((line) => line.startsWith('data:'))
              .pop()
              ?.slice(5) ?? '')
          : text;
        return (JSON.parse(json) as { result: T }).result;
      };
      try {
        const init = await post({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion, capabilities: {}, clientInfo: { name: 'page', version: '1' } },
        });
        const session = init.headers.get('mcp-session-id') ?? '';
        const agreed = await result<{ protocolVersion: string }>(init);
        const onSession = { 'mcp-session-id': session, 'mcp-protocol-version': agreed.protocolVersion };
        const initialized = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, onSession);
        const listed = await result<{ tools: { name: string }[] }>(
          await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, onSession),
        );
        const abort = new AbortController();
        const stream = await fetch(endpoint, {
          headers: { ...auth, ...onSession, accept: 'text/event-stream' },
          // No cache option: the node answers its stream no-store, which Chromium needs (see server/src/mcp/no-store.ts).
          signal: abort.signal,
        });
        abort.abort();
        const deleted = await fetch(endpoint, { method: 'DELETE', headers: { ...auth, ...onSession } });
        return {
          ok: true,
          session,
          initialized: initialized.status,
          tools: listed.tools.map((t) => t.name),
          stream: stream.status,
          deleted: deleted.status,
        };
      } catch (err) {
        const e = err as Error;
        return { ok: false, error: e.name, message: e.message };
      }
    },
    { endpoint, token, protocolVersion: LATEST_PROTOCOL_VERSION },
  );

/** A page of another origin, served by a server of its own. */
const servePage = async (host: string): Promise<Server> => {
  const server = createHttpServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>mcp host</title>'),
  );
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return server;
};

const originOf = (server: Server, host: string) => `http://${host}:${(server.address() as AddressInfo).port}`;

/**
 * A browser MCP client (an inspector, a web agent host) on a page of PLANHUB_ALLOWED_ORIGINS must be able to use /mcp:
 * the origin policy admits it, so the node must also answer the preflight its JSON POST triggers, and let it read the
 * session id. Before, the preflight was answered 400 with no CORS headers and Chromium blocked every request.
 */
describe('/mcp from a page of another origin, in Chromium', () => {
  const suite = browserSuite();
  let node: PlanHubServer;
  let endpoint = '';
  let token = '';
  const pages: Server[] = [];
  let allowed = '';
  let other = '';

  beforeAll(async () => {
    const allowedPage = await servePage('127.0.0.2');
    const otherPage = await servePage('127.0.0.3');
    pages.push(allowedPage, otherPage);
    allowed = originOf(allowedPage, '127.0.0.2');
    other = originOf(otherPage, '127.0.0.3');
    node = createServer({ port: 0, logLevel: 'silent', secret: SECRET, allowedOrigins: [allowed] });
    endpoint = `${(await node.listen()).url}/mcp`;
    token = await mintToken(SECRET, { workspace: 'team', agent_id: 'web-host', role: 'agent' }, '10m');
  });
  afterAll(async () => {
    await node.close();
    await Promise.all(pages.map((s) => new Promise((resolve) => s.close(resolve))));
  });

  /** Opens `origin` in a new tab, recording the status of every preflight Chromium sends from it. */
  const open = async (origin: string) => {
    const page = await suite.browser.newPage();
    // Closed after the test however its exchange ended.
    suite.cleanups.push(() => page.close());
    const preflights: number[] = [];
    const cdp = await page.context().newCDPSession(page);
    cdp.on('Network.responseReceived', (e) => {
      if (e.type === 'Preflight') preflights.push(e.response.status);
    });
    await cdp.send('Network.enable');
    await page.goto(`${origin}/`);
    return { page, preflights };
  };

  it('lets a page of PLANHUB_ALLOWED_ORIGINS open an MCP session, list the tools, read the stream and end it', async () => {
    const { page, preflights } = await open(allowed);
    const exchange = await mcpExchange(page, endpoint, token);
    expect(exchange).toMatchObject({ ok: true, initialized: 202, stream: 200, deleted: 200 });
    if (!exchange.ok) return;
    expect(exchange.session).toMatch(/\S/);
    expect(exchange.tools).toEqual(expect.arrayContaining(['getWorkspace', 'waitForEvents']));
    expect(preflights.length).toBeGreaterThan(0);
    expect(new Set(preflights)).toEqual(new Set([204]));
  });

  it('blocks a page of an origin the node does not allow: its preflight is refused 403 and fetch rejects', async () => {
    const { page, preflights } = await open(other);
    const exchange = await mcpExchange(page, endpoint, token);
    expect(exchange).toEqual({ ok: false, error: 'TypeError', message: 'Failed to fetch' });
    expect(preflights).toEqual([403]);
  });
});
