import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { configFromEnv, createServer, mintToken } from '@planhub/server';
import { io } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { openAuth, rawClient } from '../security/support/raw-client.ts';
import { launchChromium, watchPageErrors } from './chromium.ts';

/** The browser build of socket.io-client, served by the attacker's page as any site could. */
const SOCKET_IO_JS = readFileSync(
  join(dirname(createRequire(import.meta.url).resolve('socket.io-client/package.json')), 'dist/socket.io.min.js'),
  'utf8',
);
const PAGE = '<!doctype html><title>elsewhere</title><script src="sio.js"></script>';

interface Attempt {
  connected: boolean;
  ack?: { ok: boolean; error?: { code: string } };
  message?: string;
  data?: { code: string; message: string } | null;
}

/** In the page: connect to the node as a user and try to approve the victim's plan. */
const attempt = (page: Page, target: string, planId: string, transports: string[]): Promise<Attempt> =>
  page.evaluate(
    ({ target, planId, transports }) =>
      new Promise<Attempt>((resolve) => {
        const w = window as unknown as { io: typeof io };
        const s = w.io(target, {
          transports,
          reconnection: false,
          forceNew: true,
          auth: { workspace: 'ws', agent_id: 'intruder', role: 'user' },
        });
        s.on('connect', () =>
          s.emit('call', { tool: 'plan_approve', args: { plan_id: planId } }, (ack: Attempt['ack']) => {
            s.disconnect();
            resolve({ connected: true, ...(ack ? { ack } : {}) });
          }),
        );
        s.on('connect_error', (err: Error & { data?: Attempt['data'] }) => {
          s.disconnect();
          resolve({ connected: false, message: err.message, data: err.data ?? null });
        });
      }),
    { target, planId, transports },
  );

const serveElsewhere = async (host: string): Promise<Server> => {
  const server = createHttpServer((req, res) => {
    if (req.url === '/sio.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(SOCKET_IO_JS);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return server;
};

const portOf = (server: Server) => (server.address() as AddressInfo).port;

/** A GET with whatever Host header a DNS-rebinding page would send. */
const getWithHost = (url: string, host: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('error', reject);
    req.end();
  });

describe('the origin policy in Chromium (open mode)', () => {
  let browser: Browser;
  let h: Harness;
  let planId = '';
  const servers: Server[] = [];
  const pages: Page[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    h = await startHarness('memory', { approvalPolicy: 'owner-or-user' });
    const victim = await rawClient(h.url, openAuth('ws', 'victim'));
    const created = await victim.call('createPlan', { title: 'Deploy', steps: ['ship'] });
    planId = (created as { result: { plan_id: string } }).result.plan_id;
    await victim.call('startPlan', { wait: false });
    victim.close();
  });
  afterAll(async () => {
    await browser.close();
    await h.close();
    for (const s of servers) s.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  afterEach(async () => {
    for (const page of pages.splice(0)) await page.close();
  });

  const open = async (url: string) => {
    const page = await browser.newPage();
    pages.push(page);
    await page.goto(url);
    await page.waitForFunction(() => 'io' in window);
    return page;
  };

  const expectUnapproved = async () => {
    const owner = await rawClient(h.url, openAuth('ws', 'victim'));
    const status = await owner.call('getPlanStatus', { plan_id: planId });
    owner.close();
    expect(status).toMatchObject({ ok: true, result: { status: 'awaiting_approval' } });
  };

  it.each([
    ['127.0.0.2', '127.0.0.2'],
    ['localhost', '127.0.0.1'],
  ])('refuses a page served on another loopback origin (http://%s:<other port>)', async (name, bind) => {
    const elsewhere = await serveElsewhere(bind);
    servers.push(elsewhere);
    const page = await open(`http://${name}:${portOf(elsewhere)}/`);

    // Refused at the upgrade (websocket-origins.test.ts has the answer's body, which no page can read).
    const ws = await attempt(page, h.url, planId, ['websocket']);
    expect(ws).toMatchObject({ connected: false, message: 'websocket error', data: null });
    const polling = await attempt(page, h.url, planId, ['polling', 'websocket']);
    expect(polling.connected).toBe(false);
    await expectUnapproved();
  });

  it('refuses a page opened from disk (Origin: null)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'planhub-origin-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'sio.js'), SOCKET_IO_JS);
    writeFileSync(join(dir, 'index.html'), PAGE);
    const page = await open(`file://${dir}/index.html`);

    const ws = await attempt(page, h.url, planId, ['websocket']);
    expect(ws).toMatchObject({ connected: false, message: 'websocket error', data: null });
    await expectUnapproved();
  });

  it('keeps the dashboard working from its own origin', async () => {
    const page = await browser.newPage();
    pages.push(page);
    const errors = watchPageErrors(page);
    await page.goto(`${h.url}/dashboard?workspace=ws&agent=board&role=dashboard`);
    await page.locator('#connection.live').waitFor();
    await page.locator('[data-agent-id="victim"]').waitFor();
    expect(errors).toEqual([]);
  });

  it('refuses a rebound host name on every HTTP route and on the socket handshake', async () => {
    const port = new URL(h.url).port;
    const rebound = `evil.example:${port}`;
    for (const path of ['/dashboard', '/dashboard/app.js', '/metrics', '/readyz', '/healthz']) {
      const res = await getWithHost(`${h.url}${path}`, rebound);
      expect(res.status, path).toBe(403);
      expect(res.body).toMatch(/loopback name/);
    }
    expect((await getWithHost(`${h.url}/healthz`, `localhost:${port}`)).status).toBe(200);

    const refusal = await new Promise<{ data?: { code: string } }>((resolve) => {
      const s = io(h.url, {
        transports: ['websocket'],
        reconnection: false,
        forceNew: true,
        extraHeaders: { host: rebound },
        auth: openAuth('ws', 'intruder', 'user'),
      });
      s.on('connect', () => {
        s.disconnect();
        resolve({});
      });
      s.on('connect_error', (err: Error & { data?: { code: string } }) => {
        s.disconnect();
        resolve(err);
      });
    });
    expect(refusal.data).toMatchObject({ code: 'PERMISSION_DENIED' });
  });

  it('refuses JSONP polling from a page of another origin', async () => {
    const elsewhere = await serveElsewhere('127.0.0.2');
    servers.push(elsewhere);
    const page = await open(`http://127.0.0.2:${portOf(elsewhere)}/`);
    // In the page, as an attacker writes it: a <script> GET sends no Origin, so a JSONP session opened with one
    // used to pass; its id came back in the script, and the page connected and approved through it.
    const outcome = await page.evaluate(
      async ({ target, planId }) => {
        const w = window as unknown as { ___eio: Array<(d: string) => void> };
        let current: ((d: string) => void) | undefined;
        w.___eio = [(d) => current?.(d)];
        const get = (sid?: string) =>
          new Promise<string>((resolve, reject) => {
            current = resolve;
            const script = document.createElement('script');
            script.src = `${target}/socket.io/?EIO=4&transport=polling&j=0&t=${Math.random()}${sid ? `&sid=${sid}` : ''}`;
            script.onerror = () => reject(new Error('refused'));
            document.body.appendChild(script);
          });
        const post = (sid: string, packet: string) =>
          fetch(`${target}/socket.io/?EIO=4&transport=polling&j=0&sid=${sid}`, {
            method: 'POST',
            mode: 'no-cors',
            body: `d=${encodeURIComponent(packet)}`,
          });
        try {
          const handshake = await get();
          const sid = (JSON.parse(handshake.slice(1)) as { sid: string }).sid;
          await post(sid, `40${JSON.stringify({ workspace: 'ws', agent_id: 'intruder', role: 'user' })}`);
          await get(sid);
          await post(sid, `421${JSON.stringify(['call', { tool: 'plan_approve', args: { plan_id: planId } }])}`);
          return { jsonp: 'session opened', answer: await get(sid) };
        } catch (err) {
          return { jsonp: (err as Error).message };
        }
      },
      { target: h.url, planId },
    );
    expect(outcome).toEqual({ jsonp: 'refused' });
    await expectUnapproved();
  });

  it('still admits clients that send no Origin (SDKs, CLIs)', async () => {
    const sdk = await rawClient(h.url, openAuth('ws', 'cli'));
    const ack = await sdk.call('getWorkspace', {});
    sdk.close();
    expect(ack.ok).toBe(true);
  });
});

describe('the origin policy in Chromium (secret mode)', () => {
  const SECRET = 'origin-test-secret-0123456789abcdef';
  let browser: Browser;
  const cleanups: (() => Promise<void> | void)[] = [];
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
    await browser.close();
  });

  /** In the page: connect with a token and read the workspace. */
  const readWith = (page: Page, target: string, token: string) =>
    page.evaluate(
      ({ target, token }) =>
        new Promise<{ ok?: boolean; refused?: string; code?: string }>((resolve) => {
          const w = window as unknown as { io: typeof io };
          const s = w.io(target, { transports: ['websocket'], reconnection: false, forceNew: true, auth: { token } });
          s.on('connect', () =>
            s.emit('call', { tool: 'getWorkspace', args: {} }, (ack: { ok: boolean }) => {
              s.disconnect();
              resolve({ ok: ack.ok });
            }),
          );
          s.on('connect_error', (err: Error & { data?: { code: string } }) => {
            s.disconnect();
            resolve({ refused: err.message, ...(err.data ? { code: err.data.code } : {}) });
          });
        }),
      { target, token },
    );

  it('admits pages only from PLANHUB_ALLOWED_ORIGINS (and the node’s own), token or not', async () => {
    const allowed = await serveElsewhere('127.0.0.2');
    const other = await serveElsewhere('127.0.0.3');
    cleanups.push(
      () => void allowed.close(),
      () => void other.close(),
    );
    const env = {
      PLANHUB_SECRET: SECRET,
      PLANHUB_ALLOWED_ORIGINS: ` http://127.0.0.2:${portOf(allowed)} ,https://ops.example `,
    };
    const config = configFromEnv(env);
    expect(config.allowedOrigins).toEqual([`http://127.0.0.2:${portOf(allowed)}`, 'https://ops.example']);
    const node = createServer({ ...config, port: 0, logLevel: 'silent' });
    const { url } = await node.listen();
    cleanups.push(() => node.close());
    const token = await mintToken(SECRET, { workspace: 'ws', agent_id: 'ops', role: 'user' }, '5m');

    const good = await browser.newPage();
    const bad = await browser.newPage();
    cleanups.push(
      () => good.close(),
      () => bad.close(),
    );
    await good.goto(`http://127.0.0.2:${portOf(allowed)}/`);
    await bad.goto(`http://127.0.0.3:${portOf(other)}/`);
    expect(await readWith(good, url, token)).toEqual({ ok: true });
    expect(await readWith(bad, url, token)).toEqual({ refused: 'websocket error' }); // refused at the upgrade
  });
});
