import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { serverEntry } from '../helpers/server-entry.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface MainRun {
  child: ChildProcess;
  /** Every line so far, stdout and stderr apart. */
  stdout: string[];
  stderr: string[];
  /** Resolves with the line (either stream) matching `pattern`, or rejects if the process exits first. */
  line(pattern: RegExp): Promise<string>;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

/** `pnpm start`'s way of starting a node: tsx over server/src/main.ts. */
export const SOURCE_ENTRY: readonly string[] = ['--import', 'tsx', 'server/src/main.ts'];

/**
 * A real node in its own process (the run's server bundle, or given `args` another entry such as SOURCE_ENTRY), with
 * only the environment given (plus PATH), as an operator starts it. Output is collected line by line so tests assert on what an operator reads.
 */
export const runMain = (env: Record<string, string>, args: readonly string[] = serverEntry()): MainRun => {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const waiters = new Set<{ pattern: RegExp; resolve: (line: string) => void }>();
  const seen = (into: string[]) => (line: string) => {
    into.push(line);
    for (const w of waiters)
      if (w.pattern.test(line)) {
        waiters.delete(w);
        w.resolve(line);
      }
  };
  createInterface({ input: child.stdout }).on('line', seen(stdout));
  createInterface({ input: child.stderr }).on('line', seen(stderr));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    child,
    stdout,
    stderr,
    exited: exited.then(async (code) => {
      await closed;
      return code;
    }),
    line: (pattern) =>
      new Promise((resolve, reject) => {
        const already = [...stdout, ...stderr].find((l) => pattern.test(l));
        if (already !== undefined) return resolve(already);
        waiters.add({ pattern, resolve });
        void exited.then(async () => {
          await closed;
          const late = [...stdout, ...stderr].find((l) => pattern.test(l));
          if (late !== undefined) resolve(late);
          else reject(new Error(`The node exited before printing ${pattern}:\n${[...stdout, ...stderr].join('\n')}`));
        });
      }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
};

/** Runs a node to its end (for configurations it must refuse). */
export const refusedStart = async (env: Record<string, string>) => {
  const run = runMain(env);
  const code = await run.exited;
  return { code, stdout: run.stdout.join('\n'), stderr: run.stderr.join('\n') };
};
