import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { refuse } from '../transport/refuse.ts';
import type { Asset } from './bundle.ts';
import { dashboardAssets } from './bundle.ts';

const SECURITY_HEADERS = {
  // The page talks only to the node that served it; nothing inline, nothing third-party.
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

const send = (req: IncomingMessage, res: ServerResponse, asset: Asset): void => {
  if (req.headers['if-none-match'] === asset.etag) {
    res.writeHead(304, { etag: asset.etag, ...SECURITY_HEADERS }).end();
    return;
  }
  res.writeHead(200, { 'content-type': asset.type, etag: asset.etag, ...SECURITY_HEADERS });
  res.end(req.method === 'HEAD' ? undefined : asset.body);
};

/**
 * GET /dashboard (the page), /dashboard/app.js, /dashboard/app.css and /dashboard/elk-worker.js (graph layout). Mount
 * it behind onlyMethods(READ): it answers any method it is given as a GET.
 */
export const serveDashboard =
  (log: Logger) =>
  async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    let assets;
    try {
      assets = await dashboardAssets();
    } catch (err) {
      log.error({ err }, 'dashboard bundle failed to build');
      refuse(res, 500, 'INTERNAL', 'The dashboard could not be built; see the server log.');
      return;
    }
    if (path === '/dashboard' || path === '/dashboard/' || path === '/dashboard/index.html')
      send(req, res, assets.html);
    else if (path === '/dashboard/app.js') send(req, res, assets.js);
    else if (path === '/dashboard/app.css') send(req, res, assets.css);
    else if (path === '/dashboard/elk-worker.js') send(req, res, assets.elkWorker);
    else refuse(res, 404, 'NOT_FOUND', `No dashboard file ${path?.slice(0, 200)}; the dashboard is at /dashboard.`);
  };
