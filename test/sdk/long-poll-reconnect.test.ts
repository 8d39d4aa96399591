import type { PlanHubClient } from '@planhub/client-sdk';
import { connect } from '@planhub/client-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { scriptedNode } from '../helpers/scripted-node.ts';

const WAIT_S = 12;
const DOWN_MS = 1_500;

/**
 * A long-poll whose connection drops mid-wait is sent again with what is left of its wait. What is left is counted
 * when the call goes out, after the reconnect: counted before it, a 12 s wait whose node came back after 8 s waited
 * 12 s more.
 */
describe('a long-poll sent again after its connection dropped', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  it('waits only what is left of the wait once the node lets it back in', async () => {
    let connections = 0;
    const node = await scriptedNode((call, ack, socket) => {
      // The first wait is cut off by the node's end; the one sent again is answered at once.
      if (node.calls.length === 1) setImmediate(() => socket.disconnect(true));
      else ack({ ok: true, result: { events: [], has_more: false } });
    });
    cleanups.push(node.close);
    // The node is back, but its handshake takes DOWN_MS: every reconnect after the first waits that long.
    node.io.use((_socket, next) => {
      connections += 1;
      if (connections === 1) next();
      else setTimeout(next, DOWN_MS);
    });
    const client: PlanHubClient = await connect({
      url: node.url,
      agentId: 'parent',
      backoff: { baseMs: 10, maxMs: 20 },
    });
    cleanups.push(() => client.close());

    const answer = await client.getTaskEvents({ event_types: ['step_unblocked'], timeout: WAIT_S });
    expect(answer.events).toEqual([]);
    await eventually(() => expect(node.calls).toHaveLength(2));
    expect(node.calls[0]?.args.timeout).toBe(WAIT_S);
    // At least DOWN_MS passed between the first attempt and the second's sending.
    const resent = node.calls[1]?.args.timeout as number;
    expect(resent).toBeGreaterThan(0);
    expect(resent).toBeLessThanOrEqual(WAIT_S - DOWN_MS / 1000);
  });
});
