// `pnpm build` for the server: one ESM bundle (dist/main.js) that plain `node` runs, with @planhub/shared bundled
// in and every npm dependency left external (installed with `pnpm install --prod`), the Lua scripts beside it, and
// the dashboard prebuilt, so a production node needs neither tsx nor esbuild.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { PREBUILT_FILES, buildDashboard } from '../src/dashboard/bundle.ts';

const SERVER = fileURLToPath(new URL('..', import.meta.url));
/**
 * server/dist, or the directory given as the first argument (the bench builds its own copy). It is emptied first, so
 * it must lie inside server/ (where the bundle's npm dependencies resolve from) and not be server/ itself.
 */
const OUT = process.argv[2] ? resolve(process.argv[2]) : join(SERVER, 'dist');
const inside = relative(SERVER, OUT);
if (inside === '' || inside.startsWith('..') || isAbsolute(inside))
  throw new Error(`The build's output directory must be inside ${SERVER}, not ${OUT}.`);

interface PackageJson {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}
const pkg = JSON.parse(readFileSync(join(SERVER, 'package.json'), 'utf8')) as PackageJson;
/** Workspace packages are TypeScript sources: they go into the bundle. Everything else is resolved at run time. */
const external = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((n) => !n.startsWith('@planhub/'));

/** Files read at run time next to the module that reads them (`new URL('x.lua', import.meta.url)`). */
const luaFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? luaFiles(join(dir, e.name)) : e.name.endsWith('.lua') ? [join(dir, e.name)] : [],
  );

rmSync(OUT, { recursive: true, force: true });
mkdirSync(join(OUT, 'dashboard-prebuilt'), { recursive: true });

await build({
  entryPoints: [join(SERVER, 'src/main.ts')],
  outfile: join(OUT, 'main.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external,
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
});

// The bundle is one file, so every script lands in dist/ and the names must not collide.
const seen = new Map<string, string>();
for (const file of luaFiles(join(SERVER, 'src'))) {
  const name = basename(file);
  const other = seen.get(name);
  if (other) throw new Error(`Two Lua scripts are both named ${name} (${other}, ${file}); rename one.`);
  seen.set(name, file);
  copyFileSync(file, join(OUT, name));
}

const dashboard = await buildDashboard();
writeFileSync(join(OUT, 'dashboard-prebuilt', PREBUILT_FILES.html), dashboard.html.body);
writeFileSync(join(OUT, 'dashboard-prebuilt', PREBUILT_FILES.js), dashboard.js.body);
writeFileSync(join(OUT, 'dashboard-prebuilt', PREBUILT_FILES.css), dashboard.css.body);
writeFileSync(join(OUT, 'dashboard-prebuilt', PREBUILT_FILES.elkWorker), dashboard.elkWorker.body);

console.log(`built ${OUT}: main.js, ${seen.size} Lua scripts, the dashboard`);
