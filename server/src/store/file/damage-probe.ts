import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Reads every entry of every table of the database at `argv[2]` without decoding it, with the engine at `argv[1]`:
 * each B-tree page a node could later touch is visited once. Plain JavaScript, so it runs in a bare `node` whatever
 * loader the parent used.
 */
const WALK = `
const [engine, path] = process.argv.slice(1);
const { open } = await import(engine);
const raw = { encoding: 'binary', keyEncoding: 'binary' };
const root = open({ path, readOnly: true, maxDbs: 64, ...raw });
const names = [];
for (const { key } of root.getRange()) names.push(Buffer.from(key).toString().replace(/\\0+$/, ''));
for (const name of names) for (const _ of root.openDB({ name, ...raw }).getRange());
root.close();
`;

/** A walk of a large store may take long; past this the node starts without the check rather than not at all. */
const WALK_TIMEOUT_MS = 120_000;

const lastLine = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter((line) => !/^\s+at /.test(line))
    .at(-1)
    ?.slice(0, 200) ?? 'no message';

/**
 * Why the file store's database in `dataDir` cannot be used, or undefined. The engine maps the file into memory and
 * trusts it: a truncated copy (an interrupted backup) killed the node with SIGBUS, a file with other content with
 * SIGSEGV, both without a word, and a restarting supervisor turned that into a silent crash loop. So a database that
 * already holds data is first read whole by another process, whose crash is reported here instead. A new (missing or
 * empty) database needs no check.
 */
export const databaseDamage = (dataDir: string): string | undefined => {
  let size: number;
  try {
    size = statSync(join(dataDir, 'data.mdb')).size;
  } catch {
    return undefined;
  }
  if (size === 0) return undefined;
  const walk = spawnSync(process.execPath, ['--input-type=module', '-e', WALK, import.meta.resolve('lmdb'), dataDir], {
    encoding: 'utf8',
    timeout: WALK_TIMEOUT_MS,
  });
  // The walk could not run or did not finish in time: not evidence of damage.
  if (walk.error !== undefined) return undefined;
  if (walk.signal !== null) return `the storage engine crashed reading it (${walk.signal})`;
  if (walk.status !== 0) return `the storage engine could not read it (${lastLine(walk.stderr)})`;
  return undefined;
};
