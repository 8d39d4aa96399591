import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/servers.ts';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
/** Debian's interpreter, where python3-socketio is installed (not whatever python3 comes first on PATH). */
const PYTHON = '/usr/bin/python3';

/** examples/python/subagent.py run to its end with exactly these PLANHUB_ variables. */
const runPython = (env: NodeJS.ProcessEnv) => {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('PLANHUB_')));
  return run(PYTHON, ['examples/python/subagent.py'], {
    cwd: root,
    env: { ...inherited, ...env },
    timeout: 30_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({
      code: err.code,
      stdout: err.stdout,
      stderr: err.stderr,
    }),
  );
};

describe('the Python subagent says what to change when it is configured wrongly', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('with a token for a node in open mode: says the node takes no token and to unset PLANHUB_TOKEN', async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
    const finished = await runPython({ PLANHUB_URL: h.url, PLANHUB_WORKSPACE: 'ws', PLANHUB_TOKEN: 'eyJhbGciOi.x.y' });
    expect(finished).toMatchObject({ code: 1, stdout: '' });
    expect(finished.stderr).toBe(
      'planhub: UNAUTHENTICATED: this node runs in open mode and takes no token: unset PLANHUB_TOKEN (the subagent ' +
        'then connects as PLANHUB_AGENT, default py-subagent).\n',
    );
  });

  it('with a PLANHUB_URL without a scheme: one planhub line naming it, exit 1, no traceback', async () => {
    const finished = await runPython({ PLANHUB_URL: '127.0.0.1:4711' });
    expect(finished).toMatchObject({ code: 1, stdout: '' });
    expect(finished.stderr).toBe(
      'planhub: url "127.0.0.1:4711" is not a node\'s address; give one like http://127.0.0.1:4000.\n',
    );
  });
});
