import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serverEntry } from '../helpers/server-entry.ts';
import { refusedStart, runMain } from './run-main.ts';

const dir = mkdtempSync(join(tmpdir(), 'planhub-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const finished = async (env: Record<string, string>, args: string[]) => {
  const run = runMain(env, [...serverEntry(), ...args]);
  const code = await run.exited;
  return { code, stdout: run.stdout.join('\n'), stderr: run.stderr.join('\n') };
};

describe('settings a node does not read are refused, not ignored', () => {
  it('refuses a misspelt PLANHUB_* variable, naming the closest setting', async () => {
    const run = await refusedStart({ PLANHUB_EVENT_RETENTON: '5' });
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(
      /^PlanHub cannot start: PLANHUB_EVENT_RETENTON \(did you mean PLANHUB_EVENT_RETENTION\?\) is not a PlanHub setting/,
    );
  });

  it('leaves alone the PLANHUB_* variables of PlanHub clients and of a webhook secret_env', async () => {
    const config = join(dir, 'planhub.json');
    writeFileSync(
      config,
      JSON.stringify({
        reporters: [{ type: 'webhook', url: 'https://hooks.example.com/in', secret_env: 'PLANHUB_WEBHOOK_SECRET' }],
      }),
    );
    const run = runMain({
      PLANHUB_URL: 'http://127.0.0.1:4000',
      PLANHUB_TOKEN: 'a-client-token',
      PLANHUB_CONFIG: config,
      PLANHUB_WEBHOOK_SECRET: 'a-webhook-signing-secret-0123',
    });
    await run.line(/PlanHub listening/);
    await run.stop();
  });

  it('refuses command-line arguments, saying where settings come from', async () => {
    const run = await finished({}, ['--port', '5000']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^PlanHub cannot start: command-line arguments are not read \(got "--port 5000"\); settings come from the environment and planhub\.json, e\.g\. PORT=5000/,
    );
  });

  it('answers --help with every setting and its default, and starts nothing', async () => {
    const run = await finished({}, ['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Settings come from the environment/);
    expect(run.stdout).toContain('PORT (default 4000)');
    expect(run.stdout).toContain('PLANHUB_EVENT_RETENTION (default 10000)');
    expect(run.stdout).toContain('PLANHUB_LIMIT_STEPS_PER_PLAN (default 200)');
    expect(run.stdout).toContain('docs/operations.md');
    expect(run.stdout).not.toMatch(/PlanHub listening/);
  });
});
