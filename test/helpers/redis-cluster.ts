import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './free-port.ts';

const run = promisify(execFile);
const STARTUP_TIMEOUT_MS = 15_000;

export interface ClusterNode {
  port: number;
  /** host:port, as PLANHUB_REDIS_CLUSTER_NODES takes it. */
  address: string;
  /** SIGKILL (a crash): the cluster notices after cluster-node-timeout and promotes its replica. */
  kill(): Promise<void>;
  alive(): boolean;
}

export interface RedisCluster {
  nodes: ClusterNode[];
  /** Every node's host:port (seed nodes for the store). */
  addresses: string[];
  /** The live master serving `slot` now. */
  masterOf(slot: number): Promise<ClusterNode>;
  /** Resolves once every live node reports cluster_state:ok and every slot has a live master. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  dispose(): Promise<void>;
}

const info = async (port: number, ...args: string[]) =>
  (await run('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' })).stdout;

/** Redis' own key → slot mapping (CLUSTER KEYSLOT), so a test can find the master that owns a workspace. */
export const keySlot = async (port: number, key: string) =>
  Number((await info(port, 'CLUSTER', 'KEYSLOT', key)).trim());

/** CLUSTER SLOTS as one node sees it: each slot range with its master first, then the replicas it knows of. */
export type SlotRange = [from: number, to: number, master: [string, number], ...replicas: [string, number][]];
const clusterSlots = async (port: number): Promise<SlotRange[]> => {
  const redis = new Redis({ port, lazyConnect: true });
  try {
    return (await redis.call('CLUSTER', 'SLOTS')) as SlotRange[];
  } finally {
    redis.disconnect();
  }
};

/** The port every live node announces for the master of `slot` (what a client connects to). */
export const announcedPorts = (nodes: readonly ClusterNode[], slot: number) =>
  Promise.all(
    nodes.map(async (node) => (await clusterSlots(node.port)).find(([from, to]) => slot >= from && slot <= to)?.[2][1]),
  );

/** Checks every 50 ms until `check` holds; fails with `what` after `timeoutMs`. */
const until = async (check: () => Promise<boolean>, what: string, timeoutMs = STARTUP_TIMEOUT_MS) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(what);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

const startNodeOnce = async (dir: string, nodeTimeoutMs: number) => {
  // The bus port is set explicitly: the default (port + 10000) may be past 65535 for an ephemeral port.
  const [port, busPort] = [await freePort(), await freePort()];
  const proc = spawn(
    'redis-server',
    [
      ...['--port', String(port), '--cluster-port', String(busPort), '--bind', '127.0.0.1', '--dir', dir],
      ...['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`)],
      ...['--cluster-node-timeout', String(nodeTimeoutMs), '--save', '', '--appendonly', 'no'],
      // Replicas sync at once instead of after the default 5 s wait for more replicas to join the transfer.
      ...['--repl-diskless-sync-delay', '0'],
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      // Not left running: the caller never learns of a node that did not start.
      proc.kill('SIGKILL');
      reject(new Error(`redis-server did not start on ${port}: ${out}`));
    }, 10_000);
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        proc.stdout.removeAllListeners('data');
        proc.stdout.resume();
        resolve();
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${out}`));
    });
  });
  return { port, proc };
};

/**
 * Six nodes pick their two ports each at once, and a port free a moment ago can be taken by the time redis-server
 * binds it (another node's pick, or any other process): such a node is started again on new ports.
 */
const startNode = async (dir: string, nodeTimeoutMs: number) => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startNodeOnce(dir, nodeTimeoutMs);
    } catch (err) {
      if (attempt >= 5 || !/Address already in use/.test(String(err))) throw err;
    }
  }
};

const killProc = async (proc: ChildProcess) => {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGKILL');
  await exited;
};

/**
 * A real local Redis Cluster: 3 masters and 3 replicas (`redis-server --cluster-enabled yes`, joined by
 * `redis-cli --cluster create`), nothing persisted, in a temporary directory removed by dispose().
 */
export const startRedisCluster = async (options: { nodeTimeoutMs?: number } = {}): Promise<RedisCluster> => {
  const dir = mkdtempSync(join(tmpdir(), 'planhub-cluster-'));
  const started: { port: number; proc: ChildProcess }[] = [];
  const dispose = async () => {
    await Promise.all(started.map((n) => killProc(n.proc)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // Every start is waited for, so a node that fails to start does not leave the others running unrecorded.
    const starts = await Promise.allSettled(
      Array.from({ length: 6 }, () => startNode(dir, options.nodeTimeoutMs ?? 2000)),
    );
    for (const s of starts) if (s.status === 'fulfilled') started.push(s.value);
    const failed = starts.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    const addresses = started.map((n) => `127.0.0.1:${n.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '1', '--cluster-yes'], {
      encoding: 'utf8',
      timeout: STARTUP_TIMEOUT_MS,
    });
    const nodes: ClusterNode[] = started.map((n) => ({
      port: n.port,
      address: `127.0.0.1:${n.port}`,
      kill: () => killProc(n.proc),
      alive: () => n.proc.exitCode === null && n.proc.signalCode === null,
    }));
    const masterOf = async (slot: number) => {
      const probe = nodes.find((n) => n.alive());
      if (!probe) throw new Error('no live node');
      const range = (await clusterSlots(probe.port)).find(([from, to]) => slot >= from && slot <= to);
      const node = nodes.find((n) => n.port === range?.[2][1]);
      if (!node) throw new Error(`no master serves slot ${slot}`);
      return node;
    };
    const healthy = async () => {
      for (const node of nodes.filter((n) => n.alive())) {
        const state = await info(node.port, 'CLUSTER', 'INFO');
        if (!/cluster_state:ok/.test(state) || !/cluster_slots_ok:16384/.test(state)) return false;
        const role = await info(node.port, 'INFO', 'replication');
        if (/role:slave/.test(role) && !/master_link_status:up/.test(role)) return false;
      }
      return true;
    };
    const waitHealthy = (timeoutMs = STARTUP_TIMEOUT_MS) =>
      until(healthy, 'the Redis Cluster did not become healthy in time', timeoutMs);
    await waitHealthy();
    // A node learns the other masters' replicas by gossip, after its own link is up: until then its CLUSTER SLOTS
    // lists a master without its replica, and a test that looks for the replica of a slot finds none.
    const replicasKnown = async () => {
      for (const node of nodes) {
        const ranges = await clusterSlots(node.port);
        if (ranges.length === 0 || ranges.some((range) => range.length < 4)) return false;
      }
      return true;
    };
    await until(replicasKnown, "the Redis Cluster's nodes did not learn every replica in time");
    return { nodes, addresses, masterOf, waitHealthy, dispose };
  } catch (err) {
    await dispose();
    throw err;
  }
};
