import ElkApi from 'elkjs/lib/elk-api.js';
import type { ELK, ELKConstructorArguments, ElkNode } from 'elkjs/lib/elk-api.js';

// elk-api.js is CommonJS: its module.exports is the constructor (esbuild hands it over as the default import). The
// layout engine itself (1.5 MB) runs in a worker the node serves, so the page stays small and layout never blocks it.
const Elk = ((ElkApi as unknown as { default?: unknown }).default ?? ElkApi) as new (
  args?: ELKConstructorArguments,
) => ELK;

const WORKER_URL = '/dashboard/elk-worker.js';
/** Far above what a workspace's graph takes to lay out: past it, the worker is taken as stuck. */
const LAYOUT_DEADLINE_MS = 30_000;

interface LayoutWorker {
  elk: ELK;
  /** Rejects when the worker reports an error: its script did not load (a node restarting, a dropped request). */
  broken: Promise<never>;
}

/**
 * elk-api answers only the worker's messages: a worker whose script failed to load, or that died, leaves every layout
 * pending for ever. So each layout races the worker's error event and a deadline, and a failed worker is ended and
 * dropped: the next layout starts a new one, which fetches the script again.
 */
export const createLayout = () => {
  let current: LayoutWorker | undefined;
  const start = (): LayoutWorker => {
    let fail: (err: Error) => void = () => undefined;
    const broken = new Promise<never>((_, reject) => (fail = reject));
    // Caught here too: no layout may be waiting when the worker reports.
    broken.catch(() => undefined);
    const elk = new Elk({
      workerUrl: WORKER_URL,
      workerFactory: (url) => {
        const worker = new Worker(url ?? WORKER_URL);
        worker.addEventListener('error', () => fail(new Error('the layout worker failed to load or stopped')));
        return worker;
      },
    });
    return { elk, broken };
  };
  return async (graph: ElkNode): Promise<ElkNode> => {
    const worker = (current ??= start());
    let timer = 0;
    const late = new Promise<never>((_, reject) => {
      timer = window.setTimeout(() => reject(new Error('the layout took too long')), LAYOUT_DEADLINE_MS);
    });
    try {
      return await Promise.race([worker.elk.layout(graph), worker.broken, late]);
    } catch (err) {
      if (current === worker) {
        worker.elk.terminateWorker();
        current = undefined;
      }
      throw err;
    } finally {
      window.clearTimeout(timer);
    }
  };
};
