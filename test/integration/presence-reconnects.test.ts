import { connect } from '@planhub/client-sdk';
import { afterEach, describe, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { STORE_KINDS, startHarness, type Harness } from '../helpers/servers.ts';

/**
 * An agent that reconnects within a heartbeat was never offline: a client reconnecting in a loop used to write an
 * agent_offline and an agent_online per round trip, and could push everyone else's events out of the log.
 */
describe.each(STORE_KINDS)('presence of an agent that reconnects at once (%s store)', (kind) => {
  let h: Harness | undefined;
  afterEach(async () => h?.close());

  it('writes one agent_online for a burst of reconnects, and one agent_offline after the last', async () => {
    h = await startHarness(kind, { presenceHeartbeatMs: 1000 });
    const { url } = h;
    const board = await h.client('board', { role: 'user' });
    const presence = async () =>
      (await board.getTaskEvents({ event_types: ['agent_online', 'agent_offline'], limit: 100 })).events
        .filter((e) => e.source_agent === 'flapper')
        .map((e) => e.event_type);
    for (let i = 0; i < 20; i++) {
      const client = await connect({ url, agentId: 'flapper', workspace: 'ws' });
      client.close();
    }
    const last = await connect({ url, agentId: 'flapper', workspace: 'ws' });
    await poll(presence).toEqual(['agent_online']);
    last.close();
    await poll(presence).toEqual(['agent_online', 'agent_offline']);
  });
});
