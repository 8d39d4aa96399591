import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDockerfile, type Stage } from './dockerfile.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const text = readFileSync(`${ROOT}Dockerfile`, 'utf8');
const { stages } = parseDockerfile(text);
const final = stages.at(-1) as Stage;
const run = promisify(execFile);

/** The final stage's RUN that removes dangling links, and its place among the stage's instructions. */
const cleanup = final.instructions.findIndex((i) => i.op === 'RUN' && /-xtype l/.test(i.args));

describe('the Dockerfile', () => {
  it('names no syntax frontend, so BuildKit builds it without pulling one from Docker Hub', () => {
    const directives = text.split('\n').filter((line) => /^#\s*syntax\s*=/i.test(line));
    expect(directives).toEqual([]);
  });

  it('removes, in the runtime stage, the links pnpm deploy leaves that point outside the image', () => {
    const copy = final.instructions.findIndex((i) => i.op === 'COPY' && /\/node_modules\s/.test(i.args));
    const user = final.instructions.findIndex((i) => i.op === 'USER');
    expect(cleanup, 'a RUN with find … -xtype l in the final stage').toBeGreaterThan(copy);
    // The copied files belong to root: only root can remove them.
    expect(cleanup).toBeLessThan(user);
  });
});

/**
 * What that RUN does, on the layout `pnpm --filter @planhub/server deploy --prod --legacy /out` produces: every
 * dependency linked inside node_modules, and the package itself linked back to the workspace (/src/server), which
 * resolves in the build stage and dangles in the runtime image (`docker cp` then fails on it).
 */
describe("the Dockerfile's link cleanup, on pnpm deploy's layout", () => {
  const root = mkdtempSync(join(tmpdir(), 'planhub-links-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const deployed = (base: string) => {
    const nm = join(base, 'node_modules');
    mkdirSync(join(nm, '.pnpm/zod@4.1.0/node_modules/zod'), { recursive: true });
    writeFileSync(join(nm, '.pnpm/zod@4.1.0/node_modules/zod/package.json'), '{}');
    symlinkSync('.pnpm/zod@4.1.0/node_modules/zod', join(nm, 'zod'));
    mkdirSync(join(nm, '.pnpm/node_modules/@planhub'), { recursive: true });
    symlinkSync('../../../../../src/server', join(nm, '.pnpm/node_modules/@planhub/server'));
    return nm;
  };
  const apply = (cwd: string) => run('sh', ['-c', final.instructions[cleanup]?.args ?? 'false'], { cwd });

  it('leaves the build stage as it is, and removes only the dangling link from the runtime copy', async () => {
    mkdirSync(join(root, 'src/server'), { recursive: true });
    const out = join(root, 'out');
    deployed(out);
    const app = join(root, 'image/app');
    mkdirSync(app, { recursive: true });
    cpSync(join(out, 'node_modules'), join(app, 'node_modules'), { recursive: true, verbatimSymlinks: true });

    await apply(out);
    // In the build stage the link resolves (the workspace is there): a cleanup there would have removed nothing.
    expect(lstatSync(join(out, 'node_modules/.pnpm/node_modules/@planhub/server')).isSymbolicLink()).toBe(true);

    await apply(app);
    expect(existsSync(join(app, 'node_modules/.pnpm/node_modules/@planhub'))).toBe(true);
    expect(() => lstatSync(join(app, 'node_modules/.pnpm/node_modules/@planhub/server'))).toThrow(/ENOENT/);
    expect(lstatSync(join(app, 'node_modules/zod')).isSymbolicLink()).toBe(true);
    expect(existsSync(join(app, 'node_modules/zod/package.json'))).toBe(true);
  });
});
