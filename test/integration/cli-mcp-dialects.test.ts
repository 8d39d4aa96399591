import { describe, expect, it } from 'vitest';
import { cliEnv, runCli } from './cli-process.ts';

/** The bridge with stdin closed at once: a bridge that got past its checks would end 0 when stdin ends. */
const planhubMcp = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(['mcp', ...args], { env: { ...cliEnv, ...env }, timeout: 30_000 });

const VALID = '000, 001, 002, 003, 004, planhub';

// Each launch loads the CLI from source through tsx (about 1.4 s of CPU on this project's 2-core machines). No node
// runs: the check is local, and a port nobody listens on shows it comes before any request.
describe('planhub mcp --dialects is checked before the bridge starts', { timeout: 60_000 }, () => {
  it('refuses an unknown dialect with one line naming the valid ones, exit 2, nothing on stdout', async () => {
    const outcome = await planhubMcp(['--url', 'http://127.0.0.1:9', '--agent', 'a', '--dialects', '009']);
    expect(outcome).toMatchObject({ code: 2, stdout: '' });
    expect(outcome.stderr).toBe(
      `planhub mcp: --dialects (or PLANHUB_DIALECTS): "009" is not a dialect; give some of ${VALID}, ` +
        'comma-separated (unset: all of them).\n',
    );
  });

  it('names each unknown entry of a list, from PLANHUB_DIALECTS too', async () => {
    const outcome = await planhubMcp(['--url', 'http://127.0.0.1:9', '--agent', 'a'], {
      PLANHUB_DIALECTS: '000, all,5',
    });
    expect(outcome).toMatchObject({ code: 2, stdout: '' });
    expect(outcome.stderr).toMatch(/^planhub mcp: --dialects \(or PLANHUB_DIALECTS\): "all", "5" are not dialects;/);
  });
});
