import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { dashboardAgent, dashboardNode } from './dashboard-node.ts';
import { browserSuite, watchPageErrors } from './chromium.ts';

/** 40 units per agent per 2 s window. */
const LIMITS = { callsPerSecond: 20, rateWindowSeconds: 2 } as const;
/**
 * A plan of 100 steps of 4,000 characters: about 410 KB of overview. Seven of them make an overview of about 2.9 MB,
 * 43 units: more than the window holds, so every call after it in that window is refused.
 */
const STEPS = Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(4_000, '.'));

/**
 * A workspace whose overview costs the dashboard a whole rate window (the node charges an answer by its bytes): the
 * calls of its catch-up that follow were refused for the rate, and the catch-up started over with the overview, which
 * spent the next window the same way, so the page never subscribed (it only showed what each re-read brought). It
 * waits out the window and goes on instead.
 */
describe('the dashboard of a workspace whose overview costs a rate window', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('subscribes after reading the overview once', async () => {
    const { url } = await dashboardNode(cleanups, { limits: LIMITS });
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) {
      const agent = await dashboardAgent(cleanups, url, id);
      await agent.createPlan({ title: `Plan of ${id}`, steps: STEPS });
    }
    const page = await suite.browser.newPage();
    cleanups.push(() => page.close());
    const errors = watchPageErrors(page);
    // The page's calls and answers, as they cross its socket: "<ack id> <tool>" sent, "<ack id> ok|CODE" received.
    const sent = new Map<string, string>();
    const answered: string[] = [];
    page.on('websocket', (ws) => {
      ws.on('framesent', ({ payload }) => {
        const call = /^42(\d+)\["call",\{"tool":"(\w+)"/.exec(String(payload));
        if (call) sent.set(call[1]!, call[2]!);
      });
      ws.on('framereceived', ({ payload }) => {
        const ack = /^43(\d+)\[\{"ok":(true|false)/.exec(String(payload).slice(0, 64));
        if (ack) answered.push(`${sent.get(ack[1]!)} ${ack[2] === 'true' ? 'ok' : 'refused'}`);
      });
    });
    await page.goto(`${url}/dashboard?workspace=ws&agent=alice&role=user`);
    await poll(() => answered.includes('subscribeToTasks ok')).toBe(true);
    expect([...sent.values()].filter((tool) => tool === 'getWorkspace')).toHaveLength(1);
    await page.locator('[data-agent-id="g"]').waitFor();
    expect(errors).toEqual([]);
  });
});
