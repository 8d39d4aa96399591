import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';

export const CLI = new URL('../../client-sdk/bin/planhub.mjs', import.meta.url).pathname;

/** This process's environment without the CLI's own variables, so only the arguments configure it. */
export const cliEnv = (() => {
  const { PLANHUB_URL: _url, PLANHUB_TOKEN: _token, PLANHUB_WORKSPACE: _workspace, ...env } = process.env;
  return env;
})();

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

const run = promisify(execFile);

/**
 * Runs the CLI to its end; the exit code, whatever it is, is part of the answer. `env` replaces `cliEnv` (pass
 * `{ ...cliEnv, … }` to add to it); `timeout` kills a CLI that does not end.
 */
export const runCli = (args: readonly string[], options: { env?: NodeJS.ProcessEnv; timeout?: number } = {}) =>
  run(process.execPath, [CLI, ...args], {
    env: options.env ?? cliEnv,
    ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
  }).then(
    ({ stdout, stderr }): CliOutcome => ({ code: 0, stdout, stderr }),
    (err: CliOutcome): CliOutcome => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );

/** A long-running CLI process: what it printed so far, and how (and when) it ended. */
export const startCli = (args: string[]) => {
  let output = '';
  let stderr = '';
  const child: ChildProcess = spawn(process.execPath, [CLI, ...args], {
    env: cliEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return {
    child,
    exited,
    output: () => output,
    stderr: () => stderr,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
};

/**
 * Whether a following command (`watch`, `events --follow`) has reached its wait: that is when it starts to handle
 * SIGHUP, with SIGINT and SIGTERM (before, a signal takes its default action). Linux: bit 0 of SigCgt in
 * /proc/<pid>/status.
 */
export const isFollowing = (pid: number): boolean => {
  const mask = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '0';
  return (BigInt(`0x${mask}`) & 1n) === 1n;
};
