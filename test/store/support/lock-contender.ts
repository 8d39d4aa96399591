/**
 * One node's attempt at a storage directory's lock, in a process of its own (the lock tells nodes apart by pid):
 * waits until the given instant so that every contender tries at once, prints "took" or "refused", and holds what it
 * took until stdin closes. Usage: lock-contender.ts <dir> <epoch ms to start at>.
 */
import { takeNodeLock } from '../../../server/src/store/file/node-lock.ts';

const [dir, startAt] = process.argv.slice(2);
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
let outcome: string;
try {
  takeNodeLock(dir ?? '');
  outcome = 'took';
} catch (err) {
  outcome = `refused: ${err instanceof Error ? err.message : String(err)}`;
}
process.stdout.write(`${outcome}\n`);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
