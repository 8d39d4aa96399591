import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const tsx = `${root}node_modules/.bin/tsx`;
const INSTRUCTION =
  'Step is now in progress. Proceed immediately with: Extract token validation (step_2). Report its honest ' +
  'outcome with setStepStatus when done.\n';

describe("the README's 30-second tour", () => {
  let h: Harness;
  afterEach(async () => h.close());

  /** The environment without PLANHUB_URL: the tour must find the node from its argument alone. */
  const env = () => {
    const { PLANHUB_URL: _url, ...rest } = process.env;
    return { ...rest, PLANHUB_WORKSPACE: 'default' };
  };

  it('runs the example agent against the URL it is given, and the plan command shows its progress', async () => {
    h = await startHarness('memory', { approvalPolicy: 'owner-or-user' });
    const agent = await run(tsx, ['--conditions=planhub-source', 'client-sdk/examples/tour.ts', h.url], {
      cwd: root,
      env: env(),
    });
    expect(agent.stdout).toBe(INSTRUCTION);
    const plan = await run(
      process.execPath,
      ['client-sdk/bin/planhub.mjs', 'plan', '--agent', 'main', '--url', h.url],
      { cwd: root, env: env() },
    );
    expect(plan.stdout).toContain('  [x] step_1: Review auth code\n  [>] step_2: Extract token validation\n');
    expect(plan.stdout).toContain('Progress: 1/4 (25%)');
  });

  it('runs again on the same node: it ends the previous plan and starts the same way', async () => {
    h = await startHarness('memory', { approvalPolicy: 'owner-or-user' });
    const first = await run(tsx, ['--conditions=planhub-source', 'client-sdk/examples/tour.ts'], {
      cwd: root,
      env: { ...env(), PLANHUB_URL: h.url },
    });
    expect(first.stdout).toBe(INSTRUCTION);
    const second = await run(tsx, ['--conditions=planhub-source', 'client-sdk/examples/tour.ts', h.url], {
      cwd: root,
      env: env(),
    });
    expect(second.stdout).toMatch(/^\(ended the previous run's plan \w+\)\n/);
    expect(second.stdout.replace(/^.*\n/, '')).toBe(INSTRUCTION);
    expect(second.stderr).toBe('');
    const main = await h.client('main', { workspace: 'default' });
    const plan = await main.getPlanStatus({});
    expect(plan.status).toBe('in_progress');
    expect(plan.progress).toMatchObject({ completed: 1, total: 4 });
  });

  it('says which URL failed and how to point it at a node when none answers', async () => {
    h = await startHarness('memory');
    const url = h.url;
    await h.server.close();
    const failed = await run(tsx, ['--conditions=planhub-source', 'client-sdk/examples/tour.ts', url], {
      cwd: root,
      env: env(),
    }).catch((err: { code: number; stdout: string; stderr: string }) => err);
    expect(failed).toMatchObject({ code: 1, stdout: '' });
    const lines = failed.stderr.split('\n');
    expect(lines[0]).toContain(url);
    expect(lines.slice(1)).toEqual([
      'Start a node first (npx --yes pnpm@10 start), or pass its URL:',
      '  npx tsx --conditions=planhub-source client-sdk/examples/tour.ts http://127.0.0.1:<port>',
      '',
    ]);
  });
});
