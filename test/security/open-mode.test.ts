import { spawn } from 'node:child_process';
import { createServer } from '@planhub/server';
import { describe, expect, it } from 'vitest';

const MAIN = new URL('../../server/src/main.ts', import.meta.url).pathname;
const TSX = new URL('../../server/node_modules/.bin/tsx', import.meta.url).pathname;

/** Runs main.ts until it exits or prints `until`; then stops it. Resolves with its exit code and output. */
const runMain = (env: Record<string, string>, until?: RegExp) =>
  new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(TSX, [MAIN], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (until?.test(output)) child.kill('SIGTERM');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });

describe('open mode is loopback only', () => {
  it('refuses to bind 0.0.0.0 without a secret, says how to fix it, and exits non-zero', async () => {
    const { code, output } = await runMain({ HOST: '0.0.0.0' });
    expect(code).not.toBe(0);
    expect(output).toMatch(/Refusing to listen on 0\.0\.0\.0 in open mode/);
    expect(output).toMatch(/Set PLANHUB_SECRET/);
    expect(output).not.toMatch(/PlanHub listening/);
  });

  it('binds 0.0.0.0 once a secret is set, and never logs the secret', async () => {
    const secret = 'a-long-enough-secret-for-tests';
    const { output } = await runMain({ HOST: '0.0.0.0', PLANHUB_SECRET: secret }, /PlanHub listening/);
    expect(output).toMatch(/PlanHub listening on http:\/\/0\.0\.0\.0:\d+/);
    expect(output).toMatch(/"mode":"secret"/);
    expect(output).not.toContain(secret);
  });

  it('is enforced by createServer too, for code that embeds the server', async () => {
    const open = createServer({ host: '0.0.0.0', port: 0, logLevel: 'silent' });
    await expect(open.listen()).rejects.toThrow(/Refusing to listen on 0\.0\.0\.0 in open mode.*PLANHUB_SECRET/);
    await open.close();
    const secret = createServer({ host: '0.0.0.0', port: 0, logLevel: 'silent', secret: 'x'.repeat(32) });
    await expect(secret.listen()).resolves.toMatchObject({ host: '0.0.0.0' });
    await secret.close();
  });
});
