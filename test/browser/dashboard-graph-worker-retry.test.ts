import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';
import { browserSuite } from './chromium.ts';

declare global {
  interface Window {
    graphTexts: string[];
  }
}

const NO_DEPENDENCIES = 'No step waits on another agent.';

/**
 * The layout worker's script fails to load once (a node restarting, a dropped request). elk-api never answers the
 * layout then: the Dependencies panel said there were none until the page was reloaded.
 */
describe('the dependency graph when its layout worker fails to load', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('says it could not lay the graph out, never that nothing waits, and draws it on a retry', async () => {
    const { url } = await dashboardNode(cleanups, { approvalPolicy: 'auto' });
    const { page, errors } = await openDashboard(suite.browser, cleanups, url);
    let workerRequests = 0;
    await page.route('**/dashboard/elk-worker.js', (route) =>
      workerRequests++ === 0
        ? route.fulfill({ status: 503, contentType: 'text/plain', body: 'no server is available' })
        : route.continue(),
    );
    const graph = page.locator('#dependencies .graph');
    await poll(() => graph.textContent()).toBe(NO_DEPENDENCIES);
    // Every text the graph's region shows from here on, in order.
    await graph.evaluate((region) => {
      window.graphTexts = [region.textContent ?? ''];
      new MutationObserver(() => {
        const text = region.textContent ?? '';
        if (text !== window.graphTexts.at(-1)) window.graphTexts.push(text);
      }).observe(region, { childList: true, subtree: true, characterData: true });
    });

    const lead = await dashboardAgent(cleanups, url, 'lead');
    const sub = await dashboardAgent(cleanups, url, 'sub');
    await sub.createPlan({ title: 'Sub', steps: ['Collect'] });
    await sub.startPlan({});
    await lead.createPlan({ title: 'Lead', steps: ['Prep'] });
    await lead.startPlan({});
    await lead.addDependentStep({ description: 'Merge', depends_on: [{ agent_id: 'sub', step_id: 'step_1' }] });

    await poll(() => page.locator('#dependencies a.gnode').count()).toBe(2);
    expect(workerRequests).toBe(2);
    const texts = await page.evaluate(() => window.graphTexts);
    expect(texts[0]).toBe(NO_DEPENDENCIES);
    expect(texts.slice(1)).not.toContain(NO_DEPENDENCIES);
    expect(texts.some((t) => /^Could not lay out the graph .*; retrying in 1 s\.$/.test(t))).toBe(true);
    // The browser's report of the 503 is the only error.
    expect(errors.filter((e) => !e.includes('503'))).toEqual([]);
  });
});
