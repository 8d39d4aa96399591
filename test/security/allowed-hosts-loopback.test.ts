import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { serverFixture } from './support/server-fixture.ts';

const SECRET = 'allowed-hosts-loopback-secret-0123456789';

/** GET `path` on the node with the given Host header (fetch may not set one). */
const getWithHost = (url: string, path: string, host: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(new URL(path, url), { headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject).end();
  });

/**
 * PLANHUB_ALLOWED_HOSTS names host names accepted besides the loopback ones. In secret mode, setting it refused the
 * loopback names too, so HAProxy's check (Host: localhost) and the image's (127.0.0.1) failed and every node left
 * service.
 */
describe('PLANHUB_ALLOWED_HOSTS in secret mode', () => {
  const { started } = serverFixture();

  it('still accepts loopback names, as the health checks send them, and refuses other names', async () => {
    const { url } = await started({ secret: SECRET, allowedHosts: ['planhub.example.com'] });
    const port = new URL(url).port;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'planhub.example.com'])
      for (const path of ['/healthz', '/readyz'])
        expect(await getWithHost(url, path, host), `${path} with Host ${host}`).toMatchObject({ status: 200 });
    const rebound = await getWithHost(url, '/readyz', `rebound.example:${port}`);
    expect(rebound.status).toBe(403);
    expect(rebound.body).toMatch(/or one of PLANHUB_ALLOWED_HOSTS; \\"rebound\.example:\d+\\" is not one/);
  });
});
