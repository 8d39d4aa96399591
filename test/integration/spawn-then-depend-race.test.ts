import { afterEach, describe, it } from 'vitest';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';
import { spawnRaceRound } from '../helpers/spawn-race.ts';
import { rounds } from '../helpers/stress.ts';

const ROUNDS = rounds(4);

/** Spawn-then-depend raced on one node: the parent adds its dependencies while its subagents come into being. */
describe.each(STORE_KINDS)('spawn-then-depend race (%s store)', (store) => {
  let h: Harness;
  afterEach(async () => h.close());

  it(`unblocks every waiting step exactly once with every output (${ROUNDS} rounds)`, async () => {
    h = await startHarness(store, { approvalPolicy: 'auto' });
    for (let round = 0; round < ROUNDS; round++) {
      // A workspace per round: agents are fresh, and no agent nears its call rate.
      const connect = (id: string) => h.client(id, { workspace: `race-${round}` });
      await spawnRaceRound(connect, { tag: `r${round}`, subs: 4, waits: 3 });
    }
  });
});
