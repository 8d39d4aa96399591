import { afterEach, describe, expect, it } from 'vitest';
import { startCpuAttacker, type CpuAttacker } from './support/cpu-attack-driver.ts';
import { openAuth, rawClient, type RawClient } from './support/raw-client.ts';
import { spawnNode } from './support/spawn-node.ts';

/** Frames the attack sends before it is judged: more than a second of it at 7 a second. */
const FRAMES = 10;
/** The node's default, set here so the refusal's wording below cannot drift from it; far under the frame's 60,000 keys. */
const FRAME_VALUES = 20_000;

/**
 * What a 60,000-key frame costs a bystander's latency is measured by `pnpm bench` (the frame-attack scenario), not
 * here: a ratio of tail latencies on a shared machine is a measurement, not a pass/fail fact. This test holds what
 * does not depend on timing.
 */
describe('an agent sending huge frames', () => {
  const stoppable: Array<{ stop(): Promise<void> }> = [];
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    for (const p of stoppable.splice(0).reverse()) await p.stop();
  });

  it('gets every frame refused on its raw text while another workspace’s calls all succeed', async () => {
    // Budgets out of the way: the frames must be refused on their shape, not on what they cost the address.
    const node = await spawnNode({
      PLANHUB_LIMIT_CALLS_PER_SECOND: '1000000',
      PLANHUB_LIMIT_CALLS_PER_ADDRESS_PER_SECOND: '1000000',
      PLANHUB_LIMIT_FRAME_VALUES: String(FRAME_VALUES),
    });
    stoppable.push(node);
    const bystander = await rawClient(node.url, openAuth('quiet', 'bystander'));
    clients.push(bystander);
    const created = await bystander.call('createPlan', { title: 'steady', steps: ['a', 'b', 'c'] });
    if (!created.ok) throw new Error(created.error.message);
    const planId = (created.result as { plan_id: string }).plan_id;
    const attacker: CpuAttacker = await startCpuAttacker(node.url);
    stoppable.push(attacker);
    expect(attacker.frameBytes).toBeGreaterThan(600_000);

    await attacker.start();
    const failed: string[] = [];
    let calls = 0;
    // The bystander keeps calling for as long as the frames keep coming, so its calls interleave with them.
    while (attacker.answers().length < FRAMES) {
      attacker.assertRunning();
      const ack = await bystander.call('getPlanStatus', { plan_id: planId });
      calls++;
      if (!ack.ok) failed.push(`${ack.error.code} ${ack.error.message}`);
    }
    await attacker.pause();

    expect(failed).toEqual([]);
    expect(calls).toBeGreaterThan(0);
    const answers = attacker.answers();
    expect(answers.length).toBeGreaterThanOrEqual(FRAMES);
    expect(new Set(answers.map((a) => a.code))).toEqual(new Set(['RESOURCE_EXHAUSTED']));
    // Only the scan of the raw text (transport/frame-guard.ts) words a refusal so: no parsed or validated call is
    // answered with it. cost-before-work.test.ts pins that such a refused frame writes nothing.
    for (const { message } of answers)
      expect(message).toMatch(new RegExp(`^The call has more than ${FRAME_VALUES} keys and array elements`));
  });
});
