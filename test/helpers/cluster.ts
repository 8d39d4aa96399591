import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ConnectOptions, PlanHubClient } from '@planhub/client-sdk';
import { connect } from '@planhub/client-sdk';
import { inject } from 'vitest';
import { freePort } from './free-port.ts';
import { serverEntry } from './server-entry.ts';
import { uniquePrefix } from './servers.ts';
import { deleteClusterPrefix, deletePrefix, testClusterNodes } from './stores.ts';

/** The Redis the nodes share: the suite's single redis-server, or its Redis Cluster (3 masters + 3 replicas). */
export type RedisBackend = 'redis' | 'redis-cluster';
export const REDIS_BACKENDS: readonly RedisBackend[] = ['redis', 'redis-cluster'];

/** What createRedisStore needs to open another view of a backend's data. */
export type StoreTarget = { url: string } | { clusterNodes: string[] };

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const READY_TIMEOUT_MS = 30_000;

export interface ClusterOptions {
  /** How many server processes (default 3). */
  nodes?: number;
  /** Extra environment for every node (PLANHUB_APPROVAL_POLICY, LOG_LEVEL, …). */
  env?: Record<string, string>;
  /** Defaults to the suite's private redis-server. */
  redisUrl?: string;
  /** 'redis-cluster': the nodes use the suite's Redis Cluster (or `clusterNodes`) instead of one Redis. */
  backend?: RedisBackend;
  clusterNodes?: string[];
  /** The key prefix (default: a fresh one), e.g. to compute a workspace's slot before the nodes start. */
  prefix?: string;
}

export interface ClusterClientOptions extends Partial<ConnectOptions> {
  /** The node to connect to first; the others follow as failover URLs (default 0). */
  node?: number;
}

export interface Cluster {
  readonly prefix: string;
  /** The single Redis' URL (meaningless on a Cluster backend: use `target`). */
  readonly redisUrl: string;
  /** Where the nodes' data is, for a test's own read-only store. */
  readonly target: StoreTarget;
  /** Every node's URL, by index; stable across kill and restart. */
  readonly urls: readonly string[];
  /** The URL list an SDK client uses to start at `node` and fail over to the others in order. */
  urlsFrom(node: number): string[];
  /** An SDK client on `node` (with the others as failover), closed by close(). */
  client(agentId: string, options?: ClusterClientOptions): Promise<PlanHubClient>;
  /** SIGKILL: no shutdown path runs, as when a machine dies. */
  kill(node: number): Promise<void>;
  /** Starts a killed node again on its old port and waits until it is ready. */
  restart(node: number): Promise<void>;
  isRunning(node: number): boolean;
  /** Sends a signal to a running node: SIGSTOP pauses it (a stuck machine, a long GC), SIGCONT resumes it. */
  signal(node: number, signal: NodeJS.Signals): void;
  /** The node's recent log lines, for failure messages. */
  output(node: number): string;
  close(): Promise<void>;
}

interface Node {
  port: number;
  child: ChildProcess | undefined;
  exited: Promise<void>;
  lines: string[];
}

const alive = new Set<ChildProcess>();
// A crashed test run must not leave server processes behind.
process.once('exit', () => {
  for (const child of alive) child.kill('SIGKILL');
});

const readyz = async (port: number): Promise<boolean> => {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`)).ok;
  } catch {
    return false;
  }
};

/**
 * Spawns one real server process (`node <the run's server bundle>`, test/helpers/server-entry.ts) on `port` and resolves once its /readyz
 * answers (it listens and its store is reachable). Rejects, with the node's output, if it exits first.
 */
const spawnNode = (port: number, env: NodeJS.ProcessEnv): Promise<Node> => {
  const child = spawn(process.execPath, serverEntry(), {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  alive.add(child);
  const lines: string[] = [];
  const keep = (line: string) => {
    lines.push(line);
    if (lines.length > 200) lines.shift();
  };
  // Reading both pipes to the end also keeps a chatty node from blocking on a full pipe.
  createInterface({ input: child.stdout }).on('line', keep);
  createInterface({ input: child.stderr }).on('line', keep);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      alive.delete(child);
      resolve();
    }),
  );
  return (async () => {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await readyz(port))) {
      if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(
          `server process on port ${port} ${child.exitCode === null ? 'did not become ready' : `exited with ${child.exitCode}`}:\n${lines.join('\n')}`,
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return { port, child, exited, lines };
  })();
};

/** A fresh free port; a port taken between the check and the bind (rare) is retried with another. */
const spawnOnFreePort = async (env: NodeJS.ProcessEnv): Promise<Node> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnNode(await freePort(), env);
    } catch (err) {
      // Only an early exit (the port was taken) is worth another port; a node that never gets ready is not.
      if (attempt >= 3 || !(err instanceof Error) || !err.message.includes('exited')) throw err;
    }
  }
};

/** N real PlanHub processes on one Redis with a fresh key prefix. close() stops them and deletes the keys. */
export const startCluster = async (options: ClusterOptions = {}): Promise<Cluster> => {
  const redisUrl = options.redisUrl ?? inject('redisUrl');
  const clusterNodes = options.clusterNodes ?? (options.backend === 'redis-cluster' ? testClusterNodes() : undefined);
  const target: StoreTarget = clusterNodes ? { clusterNodes } : { url: redisUrl };
  const prefix = options.prefix ?? uniquePrefix();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...(clusterNodes
      ? { PLANHUB_REDIS_CLUSTER_NODES: clusterNodes.join(','), REDIS_URL: '' }
      : { REDIS_URL: redisUrl }),
    REDIS_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    ...options.env,
  };
  const nodes: Node[] = [];
  const clients: PlanHubClient[] = [];
  try {
    nodes.push(...(await Promise.all(Array.from({ length: options.nodes ?? 3 }, () => spawnOnFreePort(env)))));
  } catch (err) {
    for (const child of alive) child.kill('SIGKILL');
    throw err;
  }
  const urls = nodes.map((n) => `http://127.0.0.1:${n.port}`);
  const node = (i: number): Node => {
    const n = nodes[i];
    if (!n) throw new Error(`the cluster has no node ${i}`);
    return n;
  };
  const urlsFrom = (i: number) => urls.map((_, k) => urls[(i + k) % urls.length] as string);

  return {
    prefix,
    redisUrl,
    target,
    urls,
    urlsFrom,
    async client(agentId, { node: first = 0, ...rest } = {}) {
      const client = await connect({ url: urlsFrom(first), agentId, workspace: 'ws', ...rest });
      clients.push(client);
      return client;
    },
    async kill(i) {
      const n = node(i);
      n.child?.kill('SIGKILL');
      await n.exited;
      n.child = undefined;
    },
    async restart(i) {
      const n = node(i);
      if (n.child) throw new Error(`node ${i} is still running; kill it first`);
      const started = await spawnNode(n.port, env);
      nodes[i] = started;
    },
    isRunning: (i) => node(i).child !== undefined,
    signal(i, signal) {
      const child = node(i).child;
      if (!child) throw new Error(`node ${i} is not running`);
      child.kill(signal);
    },
    output: (i) => node(i).lines.join('\n'),
    async close() {
      for (const c of clients) c.close();
      await Promise.all(
        nodes.map(async (n) => {
          if (!n.child) return;
          // A paused node would never see the SIGTERM.
          n.child.kill('SIGCONT');
          n.child.kill('SIGTERM');
          const timer = setTimeout(() => n.child?.kill('SIGKILL'), 5_000);
          await n.exited;
          clearTimeout(timer);
        }),
      );
      if (clusterNodes) await deleteClusterPrefix(clusterNodes, prefix);
      else await deletePrefix(redisUrl, prefix);
    },
  };
};
