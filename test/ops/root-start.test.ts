import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

type Scripts = Record<string, string>;
const scriptsOf = (dir: string) =>
  (JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { scripts: Scripts }).scripts;

/**
 * A root script run as pnpm runs it: through sh, in the root, with the root's node_modules/.bin first on PATH. The
 * shell and the node under it get a process group of their own, so that ending the group leaves no node behind.
 */
const runRootScript = (name: string, env: Record<string, string>) => {
  const script = scriptsOf('.')[name];
  if (script === undefined) throw new Error(`no root script ${name}`);
  const child = spawn('sh', ['-c', script], {
    cwd: ROOT,
    env: { PATH: `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  const listening = new Promise<string>((resolve, reject) => {
    for (const stream of [child.stdout, child.stderr])
      createInterface({ input: stream }).on('line', (line) => {
        lines.push(line);
        if (line.includes('PlanHub listening')) resolve(line);
      });
    child.once('exit', () => reject(new Error(`the node exited before listening:\n${lines.join('\n')}`)));
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    listening,
    exited,
    pid: child.pid ?? 0,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined)
        process.kill(-child.pid, 'SIGKILL');
    },
  };
};

describe('pnpm start from the repository root', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  it('reads a relative PLANHUB_CONFIG and its storage_path from the root, where the command was typed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'planhub-root-start-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    // Both paths relative to the root: before, they were read from server/, which pnpm's --filter ran in.
    const store = relative(ROOT, join(dir, 'plans'));
    writeFileSync(join(dir, 'todo.json'), JSON.stringify({ storage_type: 'file', storage_path: store }));
    const node = runRootScript('start', { PLANHUB_CONFIG: relative(ROOT, join(dir, 'todo.json')), PORT: '0' });
    cleanups.push(node.kill);
    const started = JSON.parse(await node.listening) as { store: string };
    expect(started.store).toBe('file');
    expect(existsSync(join(dir, 'plans'))).toBe(true);
  });

  it('shuts down on Ctrl-C and exits 0, so pnpm reports no failure', async () => {
    const node = runRootScript('start', { PORT: '0' });
    cleanups.push(node.kill);
    await node.listening;
    // A terminal's Ctrl-C goes to the whole foreground process group.
    process.kill(-node.pid, 'SIGINT');
    expect(await node.exited).toEqual({ code: 0, signal: null });
  });

  it("runs the server package's own entries, from the root", () => {
    const root = scriptsOf('.');
    const server = scriptsOf('server');
    // exec: the shell pnpm runs a script in becomes the server, so Ctrl-C reaches it alone (see below).
    expect(root.start).toBe(`exec ${server.start?.replace('src/', 'server/src/')}`);
    expect(root['start:prod']).toBe(`exec ${server['start:prod']?.replace('dist/', 'server/dist/')}`);
  });
});
