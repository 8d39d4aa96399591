import { linkSync, readFileSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../config-error.ts';

/** How often the owner touches its lock, and how long an untouched lock of another host is honoured. */
const BEAT_MS = 2_000;
const STALE_MS = 5 * BEAT_MS;

interface Owner {
  host: string;
  pid: number;
  started: string;
}

const LOCK_FILE = 'planhub.lock';
/** Directories locked by this process: the pid test cannot tell two stores of one process apart. */
const lockedHere = new Set<string>();

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Whether a live pid is a node process at all; after a crash its pid may belong to anything. Unknown: yes. */
const runsNode = (pid: number): boolean => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('node');
  } catch {
    return true;
  }
};

const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

const parseOwner = (text: string | undefined): Owner | undefined => {
  try {
    return text === undefined ? undefined : (JSON.parse(text) as Owner);
  } catch {
    return undefined;
  }
};

const readOwner = (path: string): Owner | undefined => parseOwner(readText(path));

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code;

/**
 * Whether the lock's owner still runs. On this host the process table says so (our own pid is a previous life of
 * this process id, e.g. pid 1 in a restarted container; a pid reused by a process other than node is stale too);
 * another host sharing the directory is trusted while it
 * keeps touching the lock.
 */
const held = (path: string, owner: Owner | undefined): boolean => {
  if (!owner) return false;
  if (owner.host === hostname()) return owner.pid !== process.pid && alive(owner.pid) && runsNode(owner.pid);
  try {
    return Date.now() - statSync(path).mtimeMs < STALE_MS;
  } catch {
    return false;
  }
};

export interface NodeLock {
  release(): void;
}

/**
 * Replaces the stale lock `found` at `path` with `own` under the takeover mutex (`path.takeover`, a link of `own`).
 * 'lost' when another node holds the mutex or got the lock first. A mutex left by a node that died while taking over
 * is removed as a stale lock is, by its owner's pid: 'retry', since no live node is taking over and the lock is still
 * there for the taking.
 */
const takeOver = (path: string, own: string, found: string): 'took' | 'lost' | 'retry' => {
  const mutex = `${path}.takeover`;
  try {
    linkSync(own, mutex);
  } catch (err) {
    if (errno(err) !== 'EEXIST') throw err;
    const stale = readText(mutex);
    if (held(mutex, parseOwner(stale))) return 'lost';
    // Only the dead node's mutex: one a live taker linked since is left alone.
    if (readText(mutex) === stale) rmSync(mutex, { force: true });
    return 'retry';
  }
  try {
    if (readText(path) === found) rmSync(path, { force: true });
    try {
      linkSync(own, path);
      return 'took';
    } catch (err) {
      if (errno(err) === 'EEXIST') return 'lost';
      throw err;
    }
  } finally {
    rmSync(mutex, { force: true });
  }
};

/**
 * One node per storage directory: two nodes writing one store would each believe they serialize every commit. The
 * engine itself lets several processes share a file, so the store takes this lock first and refuses to start when
 * another live node holds it; a lock left by a killed node is taken over.
 */
export const takeNodeLock = (dir: string): NodeLock => {
  const path = join(realpathSync(dir), LOCK_FILE);
  if (lockedHere.has(path))
    throw new ConfigError(`storage_path ${dir} is already open in this process; the file store serves one node.`);
  const mine: Owner = { host: hostname(), pid: process.pid, started: new Date().toISOString() };
  const text = JSON.stringify(mine);
  const inUse = (owner: Owner | undefined) =>
    new ConfigError(
      `storage_path ${dir} is in use by another PlanHub node (pid ${owner?.pid} on ${owner?.host}, started ` +
        `${owner?.started}); the file store serves one node. Stop that node, give this one another storage_path, ` +
        `or use the Redis store (REDIS_URL) to run several nodes.`,
    );
  const justTaken = () =>
    new ConfigError(`storage_path ${dir} was just taken by another PlanHub node; the file store serves one node.`);
  // The lock appears whole or not at all (a link of a file already written): a node starting beside this one never
  // reads it empty and takes it for stale.
  const own = `${path}.${process.pid}.${Date.now()}`;
  writeFileSync(own, text);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(own, path);
        break;
      } catch (err) {
        if (errno(err) !== 'EEXIST') throw err;
      }
      if (attempt >= 3) throw justTaken();
      const found = readText(path);
      if (found === undefined) continue; // gone since the link failed: try again
      const owner = parseOwner(found);
      if (held(path, owner)) throw inUse(owner);
      // A stale lock is replaced by one taker at a time, holding the takeover mutex (itself a link, so exclusive):
      // it removes the lock only if it still is the stale one it read, and only a mutex holder removes a lock, so a
      // lock removed is never a live one. Its own link then fails if a node on a fresh path got in first.
      const taken = takeOver(path, own, found);
      if (taken === 'took') break;
      if (taken === 'lost') throw justTaken();
      // 'retry': a dead node's mutex is gone, and the stale lock it was replacing is still there to take.
    }
  } finally {
    rmSync(own, { force: true });
  }
  if (readText(path) !== text) throw justTaken();
  const beat = setInterval(() => {
    const now = new Date();
    try {
      utimesSync(path, now, now);
    } catch {
      // The next beat tries again; a lock that stays untouched only matters to a node on another host.
    }
  }, BEAT_MS);
  beat.unref();
  lockedHere.add(path);
  return {
    release() {
      clearInterval(beat);
      lockedHere.delete(path);
      if (readOwner(path)?.started === mine.started && readOwner(path)?.pid === mine.pid) rmSync(path, { force: true });
    },
  };
};
