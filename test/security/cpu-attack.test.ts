import { afterEach, describe, expect, it, vi } from 'vitest';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';
import { spawnNode, spawnTs, type SpawnedProcess } from './support/spawn-node.ts';

const ATTACKER = new URL('./support/cpu-attacker.ts', import.meta.url).pathname;
/** Quiet and loud phases alternate, so whatever else loads the machine weighs on both alike. */
const ROUNDS = 20;
/** Sequential bystander calls per phase: 2,000 per kind in all, the p99 resting on the 20 slowest of each. */
const SAMPLES = 100;

const answersOf = (attacker: SpawnedProcess) => attacker.output().match(/answer \S+/g) ?? [];

const p99 = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length * 0.99) - 1] ?? Number.NaN;
};

const measure = async (client: RawClient, planId: string, into: number[]) => {
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now();
    const ack = await client.call('getPlanStatus', { plan_id: planId });
    into.push(performance.now() - started);
    if (!ack.ok) throw new Error(`bystander call failed: ${ack.error.code} ${ack.error.message}`);
  }
};

/**
 * The one timing-ratio test of the security suite: a frame of 60,000 keys is refused on its raw text, before
 * JSON.parse and validation, so 7 of them a second from one agent leave another workspace's latency where it was.
 */
describe('an agent sending huge frames', () => {
  const processes: SpawnedProcess[] = [];
  const clients: RawClient[] = [];
  const cleanUp = async () => {
    for (const c of clients.splice(0)) c.close();
    for (const p of processes.splice(0).reverse()) await p.stop();
  };
  afterEach(cleanUp);

  // A ratio of two tail latencies on a shared machine: one burst from another process can land in a loud phase, so a
  // failed measurement is taken again (twice at most). Parsing one such frame alone takes 30-470 ms here.
  it(
    'is refused cheaply, and a bystander’s p99 stays within 2x of its quiet value',
    { retry: 2, timeout: 120_000 },
    async () => {
      // A retried attempt starts from nothing: no attacker left running from the one before.
      await cleanUp();
      // Budgets out of the way: the bystander polls as fast as it can, and the frames must be refused on their shape.
      const node = await spawnNode({
        PLANHUB_LIMIT_CALLS_PER_SECOND: '1000000',
        PLANHUB_LIMIT_CALLS_PER_ADDRESS_PER_SECOND: '1000000',
      });
      processes.push(node);
      const bystander = await rawClient(node.url, openAuth('quiet', 'bystander'));
      clients.push(bystander);
      const created = await bystander.call('createPlan', { title: 'steady', steps: ['a', 'b', 'c'] });
      if (!created.ok) throw new Error(created.error.message);
      const planId = (created.result as { plan_id: string }).plan_id;
      const attacker = spawnTs(ATTACKER, [node.url, '7'], {});
      processes.push(attacker);
      const [, frameBytes] = await attacker.waitFor(/ready (\d+)/);
      expect(Number(frameBytes)).toBeGreaterThan(600_000);
      await measure(bystander, planId, []);

      const quiet: number[] = [];
      const loud: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        await measure(bystander, planId, quiet);
        const answered = answersOf(attacker).length;
        attacker.send('start');
        // Loud from the first refusal on: the frames are flowing.
        await vi.waitFor(() => expect(answersOf(attacker).length).toBeGreaterThan(answered), { timeout: 10_000 });
        await measure(bystander, planId, loud);
        attacker.send('stop');
        await attacker.waitFor(new RegExp(`paused ${round}\\n`));
      }
      const answers = answersOf(attacker);

      expect(answers.length).toBeGreaterThanOrEqual(ROUNDS);
      expect(new Set(answers)).toEqual(new Set(['answer RESOURCE_EXHAUSTED']));
      const [q, l] = [p99(quiet), p99(loud)];
      expect(l, `bystander p99: quiet ${q.toFixed(2)} ms, under attack ${l.toFixed(2)} ms`).toBeLessThanOrEqual(2 * q);
    },
  );
});
