import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from '../infra/processes.ts';

export interface Watchers {
  /** Pushes the watchers received so far. */
  received(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts watchers.ts in its own process, resolving once every connection has subscribed. */
export const startWatchers = async (url: string, count: number): Promise<Watchers> => {
  const child = spawn(
    process.execPath,
    ['--conditions=planhub-source', '--import', 'tsx', 'test/bench/crowd/watchers.ts', url, String(count)],
    { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`the watchers' process exited (code ${code})`))),
  );
  exited.catch(() => undefined);
  const nextLine = () => Promise.race([new Promise<string>((resolve) => lines.once('line', resolve)), exited]);
  const first = await nextLine();
  if (first !== 'ready') throw new Error(`the watchers' process said "${first}" instead of "ready"`);
  return {
    received: async () => {
      child.stdin.write('count\n');
      return Number((await nextLine()).split(' ')[1]);
    },
    stop: async () => {
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin.end();
      await gone;
    },
  };
};
