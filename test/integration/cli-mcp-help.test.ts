import { describe, expect, it } from 'vitest';
import { runCli } from './cli-process.ts';

const planhub = (...args: string[]) => runCli(args);

// Each launch loads the CLI from source through tsx (about 1.4 s of CPU on this project's 2-core machines).
describe('planhub mcp help, like every other command', { timeout: 60_000 }, () => {
  it('prints the same help on stdout, with its options and exit codes, for mcp --help, mcp -h and help mcp', async () => {
    const helps = [await planhub('mcp', '--help'), await planhub('mcp', '-h'), await planhub('help', 'mcp')];
    for (const help of helps) {
      expect(help).toMatchObject({ code: 0, stderr: '' });
      expect(help.stdout).toContain('Usage: planhub mcp');
      for (const option of ['--url <url>', '--workspace <name>', '--agent <id>', '--token <jwt>', '--dialects <list>'])
        expect(help.stdout).toContain(option);
      expect(help.stdout).toContain('Exit codes:\n  0  done');
      expect(help.stdout).toContain('2  usage');
    }
    expect(helps[1]?.stdout).toBe(helps[0]?.stdout);
    expect(helps[2]?.stdout).toBe(helps[0]?.stdout);
  });

  it('answers an unknown option with one line and the pointer to --help every command gives, exit 2', async () => {
    const outcome = await planhub('mcp', '--agnet', 'a');
    expect(outcome).toMatchObject({ code: 2, stdout: '' });
    expect(outcome.stderr).toMatch(/^planhub mcp: [^\n]*'--agnet'[^\n]*\n\(run with --help for usage\)\n$/);
  });
});
