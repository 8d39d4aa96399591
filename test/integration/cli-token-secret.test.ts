import { describe, expect, it } from 'vitest';
import { cliEnv, runCli } from './cli-process.ts';

/** Runs `planhub token` to its end without PLANHUB_SECRET from this process, so only the arguments configure it. */
const token = (...args: string[]) => {
  const { PLANHUB_SECRET: _secret, ...env } = cliEnv;
  return runCli(['token', ...args], { env });
};

// Each launch loads the CLI from source through tsx (about 1.4 s of CPU on this project's 2-core machines).
describe('planhub token with a secret the node would refuse', { timeout: 60_000 }, () => {
  it('refuses a long secret of too few different characters as a usage error: exit 2, one line', async () => {
    const outcome = await token('--agent', 'a', '--secret', 'a'.repeat(20));
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr).toMatch(/^planhub: [^\n]*different characters[^\n]*\n$/);
  });

  it('mints with a secret of enough different characters', async () => {
    const outcome = await token('--agent', 'a', '--secret', 'abcdefgh'.repeat(2));
    expect(outcome).toMatchObject({ code: 0, stderr: '' });
    expect(outcome.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
  });
});
