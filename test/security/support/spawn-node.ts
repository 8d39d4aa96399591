import { spawn, type ChildProcess } from 'node:child_process';

export const MAIN = new URL('../../../server/src/main.ts', import.meta.url).pathname;
export const TSX = new URL('../../../server/node_modules/.bin/tsx', import.meta.url).pathname;

export interface SpawnedProcess {
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** Resolves with the first output match of `pattern` (rejects if the process exits first). */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  /** Resolves when the process has exited, with its exit code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Writes one line to the process's standard input. */
  send(line: string): void;
  stop(): Promise<void>;
}

/** Runs a TypeScript file with tsx in its own process (its own heap and event loop). */
export const spawnTs = (file: string, args: string[], env: Record<string, string>): SpawnedProcess => {
  const child = spawn(TSX, [file, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  const watchers = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const w of [...watchers]) w();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    output: () => output,
    exited,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output);
          if (!match) return;
          watchers.delete(check);
          resolve(match);
        };
        watchers.add(check);
        check();
        void exited.then(({ code }) => {
          if (!watchers.has(check)) return;
          watchers.delete(check);
          reject(new Error(`process exited (${code}) before printing ${pattern}:\n${output.slice(-2000)}`));
        });
      }),
    send: (line) => void child.stdin?.write(`${line}\n`),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
};

/** A real node (server/src/main.ts) on a free port; `nodeOptions` e.g. --max-old-space-size=96. */
export const spawnNode = async (env: Record<string, string>, nodeOptions = '') => {
  const node = spawnTs(MAIN, [], { PORT: '0', LOG_LEVEL: 'info', NODE_OPTIONS: nodeOptions, ...env });
  const match = await node.waitFor(/PlanHub listening on (http:\/\/[^\s";]+)/);
  return { ...node, url: match[1] as string };
};
