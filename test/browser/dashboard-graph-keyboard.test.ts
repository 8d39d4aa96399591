import type { PlanHubClient } from '@planhub/client-sdk';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';
import { browserSuite } from './chromium.ts';
import { seriousA11yFindings } from './dashboard-checks.ts';

type Cleanups = (() => Promise<unknown> | void)[];

/** A lead whose step waits on four subagents' steps (a fan-in), the shape where list order and layout part most. */
const fanIn = async (cleanups: Cleanups) => {
  const { url } = await dashboardNode(cleanups, { approvalPolicy: 'auto' });
  const subs: PlanHubClient[] = [];
  for (let i = 1; i <= 4; i++) {
    const sub = await dashboardAgent(cleanups, url, `sub${i}`);
    await sub.createPlan({ title: `Subtask ${i}`, steps: [`Research part ${i}`] });
    await sub.startPlan({});
    subs.push(sub);
  }
  const lead = await dashboardAgent(cleanups, url, 'lead');
  await lead.createPlan({ title: 'Integrate', steps: ['Spawn subagents'] });
  await lead.startPlan({});
  await lead.addDependentStep({
    description: 'Merge the research parts',
    depends_on: subs.map((_, i) => ({ agent_id: `sub${i + 1}`, step_id: 'step_1' })),
  });
  return url;
};

const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    const box = el?.getBoundingClientRect();
    return {
      node: el?.getAttribute('data-node') ?? null,
      inGraph: !!el?.closest('.graph'),
      y: (box?.top ?? 0) + window.scrollY,
      x: (box?.left ?? 0) + window.scrollX,
    };
  });

/** Tabs from the top of the page until `stop` says so; the number of presses, or Infinity past `limit`. */
const tabUntil = async (page: Page, stop: () => Promise<boolean>, limit = 80) => {
  for (let n = 1; n <= limit; n++) {
    await page.keyboard.press('Tab');
    if (await stop()) return n;
  }
  return Infinity;
};

describe('the dashboard’s dependency graph with the keyboard', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('moves the focus through the nodes in reading order, never back up the drawing', async () => {
    const url = await fanIn(cleanups);
    const { page, errors } = await openDashboard(suite.browser, cleanups, url, { hash: '#/ws/ws/graph' });
    await poll(() => page.locator('.graph').getAttribute('data-shape')).toBe('5');
    await page.locator('a.gnode').first().focus();
    const stops = [await focused(page)];
    for (let i = 1; i < 5; i++) {
      await page.keyboard.press('Tab');
      stops.push(await focused(page));
    }
    expect(stops.every((s) => s.node)).toBe(true);
    expect(new Set(stops.map((s) => s.node)).size).toBe(5);
    // Each stop is below the previous one, or on its row and to its right.
    const backwards = stops
      .slice(1)
      .filter((s, i) => s.y < stops[i]!.y - 0.5 || (Math.abs(s.y - stops[i]!.y) <= 0.5 && s.x < stops[i]!.x))
      .map((s) => s.node);
    expect(backwards).toEqual([]);
    expect(errors).toEqual([]);
  });

  for (const [view, hash] of [
    ['graph view', '#/ws/ws/graph'],
    ['overview', '#/ws/ws'],
  ] as const) {
    it(`offers a skip link past the graph on the ${view}`, async () => {
      const url = await fanIn(cleanups);
      const { page, errors } = await openDashboard(suite.browser, cleanups, url, { hash });
      await poll(() => page.locator('.graph').getAttribute('data-shape')).toBe('5');
      const skip = page.locator('a.graph-skip');
      const presses = await tabUntil(page, () => skip.evaluate((a) => a === document.activeElement));
      expect(presses).toBeLessThan(80);
      // Visible once focused, inside the viewport.
      const box = await skip.boundingBox();
      expect(box && box.width > 0 && box.x >= 0 && box.x + box.width <= 1280).toBe(true);
      expect(await skip.textContent()).toBe('Skip the graph');

      await page.keyboard.press('Enter');
      expect(await page.evaluate(() => location.hash)).toBe(hash);
      const landed = await focused(page);
      expect(landed.inGraph).toBe(false);
      expect(landed.node).toBeNull();
      // Past the graph: it follows the graph's last node in the document, and the next Tab does not go back in.
      expect(
        await page.evaluate(() => {
          const nodes = document.querySelectorAll('.graph a.gnode');
          const last = nodes[nodes.length - 1]!;
          return !!(last.compareDocumentPosition(document.activeElement!) & Node.DOCUMENT_POSITION_FOLLOWING);
        }),
      ).toBe(true);
      await page.keyboard.press('Tab');
      expect((await focused(page)).inGraph).toBe(false);
      expect(await seriousA11yFindings(page)).toEqual([]);
      expect(errors).toEqual([]);
    });
  }
});
