import type { ServerBuild } from '../config.ts';
import { cpuMsOf } from '../infra/cpu.ts';
import { planhubEntry } from '../infra/planhub-entry.ts';
import { startNodeServer, type NodeServer } from '../infra/processes.ts';
import { call, openAgent } from '../load/wire-client.ts';
import { currentLoad } from '../report/machine.ts';
import { startBusyWorkspace } from './busy-workspace.ts';

/** Key prefix of the isolation nodes: their workspaces stay apart from the other scenarios' on the same Redis. */
export const ISOLATION_PREFIX = 'bench-isolation';

export interface IsolationConfig {
  /** Numbers of busy workspaces, one run each. */
  busy: number[];
  /** Measured part of one run. */
  windowMs: number;
  repetitions: number;
  /** What the nodes run (BenchConfig.server). */
  server: ServerBuild;
}

/** One run: N busy workspaces on node A, one idle watcher on node B; CPU of each node per second of the window. */
export interface IsolationRow {
  busy: number;
  /** setStepStatus calls per second through node A (one event each). */
  eventsPerSecond: number;
  /** Node B's CPU, ms per second, per repetition: what the workspaces it does not serve cost it. */
  idleNodeCpuMsPerSecond: number[];
  busyNodeCpuMsPerSecond: number[];
  loadAverage: number;
}

const startIsolationNode = (name: string, redisUrl: string, server: ServerBuild) =>
  startNodeServer(name, planhubEntry(server), {
    HOST: '127.0.0.1',
    REDIS_URL: redisUrl,
    REDIS_PREFIX: ISOLATION_PREFIX,
    LOG_LEVEL: 'warn',
    PLANHUB_APPROVAL_POLICY: 'auto',
    PLANHUB_SECRET: '',
    // A busy agent with one call in flight passes the default budget (200 calls/s) on a quiet machine, and a refused
    // call ends its loop: the scenario measures fan-out, not the budget.
    PLANHUB_LIMIT_CALLS_PER_SECOND: '1000000',
  });

const cpu = (node: NodeServer) => cpuMsOf(node.child.pid ?? -1) ?? Number.NaN;

/**
 * A node's cost must follow its own clients, not the deployment's traffic: node B serves one idle watcher while N
 * busy workspaces write through node A. With one channel for every workspace, B decoded every event of A's
 * workspaces; with a channel per workspace it hears none of them, so its CPU stays flat as N grows.
 */
export const runIsolationSuite = async (
  redisUrl: string,
  config: IsolationConfig,
  progress: (line: string) => void,
): Promise<IsolationRow[]> => {
  const [nodeA, nodeB] = await Promise.all([
    startIsolationNode('planhub-isolation-a', redisUrl, config.server),
    startIsolationNode('planhub-isolation-b', redisUrl, config.server),
  ]);
  const watcher = await openAgent(nodeB.url, 'isolation-idle', 'idle-board', 'dashboard');
  try {
    await call(watcher, 'subscribeToTasks', { event_types: ['step_completed'] });
    const rows: IsolationRow[] = [];
    for (const busy of config.busy) {
      const row: IsolationRow = {
        busy,
        eventsPerSecond: 0,
        idleNodeCpuMsPerSecond: [],
        busyNodeCpuMsPerSecond: [],
        loadAverage: currentLoad(),
      };
      const workspaces = await Promise.all(
        Array.from({ length: busy }, (_, i) => startBusyWorkspace(nodeA.url, `isolation-busy-${busy}-${i}`)),
      );
      try {
        let calls = 0;
        let seconds = 0;
        for (let rep = 0; rep < config.repetitions; rep++) {
          const [a0, b0, c0, t0] = [cpu(nodeA), cpu(nodeB), sum(workspaces), Date.now()];
          await new Promise((resolve) => setTimeout(resolve, config.windowMs));
          const elapsed = (Date.now() - t0) / 1000;
          row.busyNodeCpuMsPerSecond.push((cpu(nodeA) - a0) / elapsed);
          row.idleNodeCpuMsPerSecond.push((cpu(nodeB) - b0) / elapsed);
          calls += sum(workspaces) - c0;
          seconds += elapsed;
        }
        row.eventsPerSecond = calls / seconds;
      } finally {
        await Promise.all(workspaces.map((w) => w.stop()));
      }
      rows.push(row);
      progress(
        `isolation: ${busy} busy workspaces, ${row.eventsPerSecond.toFixed(0)} events/s through A, ` +
          `B ${median(row.idleNodeCpuMsPerSecond).toFixed(1)} ms CPU/s`,
      );
    }
    return rows;
  } finally {
    watcher.close();
    await Promise.all([nodeA.stop(), nodeB.stop()]);
  }
};

const sum = (workspaces: ReadonlyArray<{ calls(): number }>) => workspaces.reduce((n, w) => n + w.calls(), 0);

export const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};
