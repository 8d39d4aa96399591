import { describe, expect, it } from 'vitest';
import { startHarness } from '../helpers/servers.ts';
import { departed, lastDepartureAt, settleDepartures } from './load/departures.ts';
import { openAgent, openSocket } from './load/wire-client.ts';

const elapsed = async (work: () => Promise<void>) => {
  const start = performance.now();
  await work();
  return performance.now() - start;
};

describe("waiting out the previous run's departures", () => {
  it('waits until settleMs after the last departure, and not at all without one that recent', async () => {
    departed();
    expect(await elapsed(() => settleDepartures(300))).toBeGreaterThanOrEqual(290);
    // A settle of 0 waits no timer: it resolves before one set now fires.
    const order: string[] = [];
    const timer = new Promise<void>((resolve) => setTimeout(() => resolve(void order.push('timer')), 0));
    await settleDepartures(0).then(() => order.push('settled'));
    await timer;
    expect(order).toEqual(['settled', 'timer']);
  });

  it("counts an agent socket's close as a departure, not a socket without presence", async () => {
    const h = await startHarness('memory');
    try {
      const agent = await openAgent(h.url, 'ws', 'leaving');
      const board = await openSocket(h.url, { workspace: 'ws', agent_id: 'board', role: 'dashboard' });
      departed();
      const before = lastDepartureAt();
      board.close();
      expect(lastDepartureAt()).toBe(before);
      agent.close();
      expect(lastDepartureAt()).toBeGreaterThan(before);
    } finally {
      await h.close();
    }
  });
});
