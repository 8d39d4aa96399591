import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { runCli } from './cli-process.ts';

const USAGE = 2;

/**
 * An id flag given as "" (`--agent "$WHO"` with WHO unset) is a usage error: the node reads an empty id as one left
 * out, so `events --agent ""` printed every agent's events and `plan --agent ""` the caller's own plan.
 */
// Each launch loads the CLI from source through tsx (about 1.4 s of CPU on this project's 2-core machines).
describe('empty id flags on the command line', { timeout: 60_000 }, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const other = await h.client('other');
    await other.createPlan({ title: 'Not asked for', steps: ['s'] });
  });
  afterAll(async () => h.close());

  it.each([
    ['events', '--agent'],
    ['plan', '--agent'],
    ['plan', '--plan'],
  ])('planhub %s %s "" is refused, exit 2, one line', async (command, flag) => {
    const outcome = await runCli([command, '--url', h.url, '--workspace', 'ws', flag, '']);
    expect(outcome).toMatchObject({ code: USAGE, stdout: '' });
    expect(outcome.stderr).toMatch(
      new RegExp(`^planhub: ${flag} is empty; give a value, or leave the flag out\\.\\n$`),
    );
  });
});
