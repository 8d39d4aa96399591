import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

describe("the README's 30-second tour", () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('runs the example agent and the plan command shows its progress', async () => {
    h = await startHarness('memory', { approvalPolicy: 'owner-or-user' });
    const env = { ...process.env, PLANHUB_URL: h.url, PLANHUB_WORKSPACE: 'default' };
    const tsx = `${root}node_modules/.bin/tsx`;
    const agent = await run(tsx, ['--conditions=source', 'client-sdk/examples/tour.ts'], { cwd: root, env });
    expect(agent.stdout).toBe(
      'Work on step_2: Extract token validation. Report its honest outcome with setStepStatus when done.\n',
    );
    const plan = await run(process.execPath, ['client-sdk/bin/planhub.mjs', 'plan', '--agent', 'main'], {
      cwd: root,
      env,
    });
    expect(plan.stdout).toContain('  [x] step_1: Review auth code\n  [>] step_2: Extract token validation\n');
    expect(plan.stdout).toContain('Progress: 1/4 (25%)');
  });
});
