import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';

export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

export interface DashboardAssets {
  html: Asset;
  js: Asset;
  css: Asset;
  /** elkjs's layout engine, run by the graph view in a Web Worker. */
  elkWorker: Asset;
}

const WEB = fileURLToPath(new URL('./web/', import.meta.url));
/** Resolved only when bundling: a production node serves the prebuilt copy and has no elkjs installed. */
const elkWorkerPath = () => createRequire(import.meta.url).resolve('elkjs/lib/elk-worker.min.js');

const asset = (body: Buffer | string, type: string): Asset => {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  return { body: buf, type, etag: `"${createHash('sha256').update(buf).digest('base64url').slice(0, 22)}"` };
};

/**
 * The browser never validates anything (the server does, and the page only renders what the server sent), yet
 * @planhub/shared builds its zod schemas when imported: 450 kB of zod for nothing. The bundle gets a stand-in whose
 * schemas can be built but not run, which keeps the page near 80 kB and the contract in one place.
 */
const ZOD_STAND_IN = `
const refuse = () => { throw new Error('zod is not part of the dashboard bundle; validation happens on the server'); };
const schema = new Proxy(function () {}, {
  get: (_t, key) => (key === 'parse' || key === 'safeParse' || key === 'parseAsync' ? refuse : schema),
  apply: () => schema,
});
export const z = schema;
export default schema;
`;

const zodStandIn: Plugin = {
  name: 'zod-stand-in',
  setup(b) {
    b.onResolve({ filter: /^zod(\/.*)?$/ }, () => ({ path: 'zod', namespace: 'zod-stand-in' }));
    b.onLoad({ filter: /.*/, namespace: 'zod-stand-in' }, () => ({ contents: ZOD_STAND_IN, loader: 'js' }));
  },
};

/**
 * Bundles the dashboard's TypeScript (with socket.io-client and @planhub/shared) for the browser, in memory. It runs
 * from the sources on first use, so the page always matches the code the node runs and there is no build step.
 */
export const buildDashboard = async (): Promise<DashboardAssets> => {
  // Loaded only here: a production node serves the prebuilt assets and has no esbuild installed.
  const { build } = await import('esbuild');
  const common = { bundle: true, write: false, minify: true, legalComments: 'none', logLevel: 'silent' } as const;
  const [bundle, styles, html, elkWorker] = await Promise.all([
    build({
      ...common,
      entryPoints: [`${WEB}main.ts`],
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      plugins: [zodStandIn],
    }),
    // styles.css @imports one stylesheet per part of the page; the browser gets them as one file.
    build({ ...common, entryPoints: [`${WEB}styles.css`] }),
    readFile(`${WEB}index.html`),
    readFile(elkWorkerPath()),
  ]);
  const js = bundle.outputFiles[0];
  const css = styles.outputFiles[0];
  if (!js || !css) throw new Error('esbuild produced no dashboard bundle');
  return {
    html: asset(html, 'text/html; charset=utf-8'),
    js: asset(Buffer.from(js.contents), 'text/javascript; charset=utf-8'),
    css: asset(Buffer.from(css.contents), 'text/css; charset=utf-8'),
    elkWorker: asset(elkWorker, 'text/javascript; charset=utf-8'),
  };
};

/** The files `pnpm build` writes next to the server bundle (dist/dashboard-prebuilt/ beside dist/main.js). */
export const PREBUILT_FILES = { html: 'index.html', js: 'app.js', css: 'app.css', elkWorker: 'elk-worker.js' } as const;

/**
 * The assets `pnpm build` made, when this code runs from the server bundle. From the sources the directory does not
 * exist (it would be src/dashboard/dashboard-prebuilt/), so development always bundles the current code.
 */
const prebuilt = async (): Promise<DashboardAssets | undefined> => {
  const dir = new URL('./dashboard-prebuilt/', import.meta.url);
  try {
    const [html, js, css, elkWorker] = await Promise.all(
      [PREBUILT_FILES.html, PREBUILT_FILES.js, PREBUILT_FILES.css, PREBUILT_FILES.elkWorker].map((f) =>
        readFile(new URL(f, dir)),
      ),
    );
    return {
      html: asset(html as Buffer, 'text/html; charset=utf-8'),
      js: asset(js as Buffer, 'text/javascript; charset=utf-8'),
      css: asset(css as Buffer, 'text/css; charset=utf-8'),
      elkWorker: asset(elkWorker as Buffer, 'text/javascript; charset=utf-8'),
    };
  } catch {
    return undefined;
  }
};

let shared: Promise<DashboardAssets> | undefined;

/** One build per process, shared by every node in it; a failed build is retried on the next request. */
export const dashboardAssets = (): Promise<DashboardAssets> => {
  shared ??= prebuilt()
    .then((ready) => ready ?? buildDashboard())
    .catch((err: unknown) => {
      shared = undefined;
      throw err;
    });
  return shared;
};
