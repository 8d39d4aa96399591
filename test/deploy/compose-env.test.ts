import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const lines = (path: string) => readFileSync(`${ROOT}${path}`, 'utf8').split('\n');

/** `docker compose` (v2) or `docker-compose` (v1), whichever answers; `config` needs no Docker engine. */
const composeCommand = (): string[] | undefined => {
  if (spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0) return ['docker', 'compose'];
  if (spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0) return ['docker-compose'];
  return undefined;
};

const config = (command: string[], cwd: string) =>
  new Promise<{ code: number; output: string }>((resolve) => {
    const { PLANHUB_SECRET: _ignored, ...env } = process.env;
    execFile(command[0] as string, [...command.slice(1), 'config'], { cwd, env }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });

/**
 * The secret used to live only in the shell that ran `docker compose up`: every later command (ps, logs, stop, the
 * rolling upgrade) run from another shell failed on `${PLANHUB_SECRET:?}`. The documented place is now a `.env`
 * beside docker-compose.yml, which compose reads by itself, and which must stay out of the image and out of git.
 */
describe('the secret in .env beside docker-compose.yml', () => {
  const dir = mkdtempSync(join(tmpdir(), 'planhub-compose-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is read by compose in a shell without PLANHUB_SECRET, and its absence is reported with where to put it', async () => {
    const command = composeCommand();
    // A prerequisite (README): Debian's docker-compose reads and checks the file without any Docker engine.
    if (!command) throw new Error('neither `docker compose` nor `docker-compose` answered: install docker-compose');
    copyFileSync(`${ROOT}docker-compose.yml`, join(dir, 'docker-compose.yml'));
    copyFileSync(`${ROOT}Dockerfile`, join(dir, 'Dockerfile'));
    mkdirSync(join(dir, 'deploy'));
    copyFileSync(`${ROOT}deploy/haproxy.cfg`, join(dir, 'deploy/haproxy.cfg'));

    const missing = await config(command, dir);
    expect(missing.code).not.toBe(0);
    expect(missing.output).toContain('in .env beside docker-compose.yml');

    const secret = 'a9Vq3+Zr/8kLm2Np4Qs6Tu=';
    writeFileSync(join(dir, '.env'), `PLANHUB_SECRET=${secret}\n`);
    chmodSync(join(dir, '.env'), 0o600);
    const read = await config(command, dir);
    expect(read.code, read.output).toBe(0);
    // Both nodes get it.
    expect(read.output.split(secret)).toHaveLength(3);
  });

  it('stays out of the image (.dockerignore) and out of git (.gitignore)', () => {
    expect(lines('.dockerignore')).toContain('.env');
    expect(lines('.gitignore')).toContain('.env');
  });
});
