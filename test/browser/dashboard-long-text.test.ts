import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';
import { browserSuite } from './chromium.ts';
import { horizontalOverflow } from './dashboard-checks.ts';

/** Text agents write with no place to break it: an id, a title, a path, a URL. */
const LONG_AGENT = `agent-${'x'.repeat(58)}`;
const LONG_TITLE = `Refactor_${'VeryLongIdentifierWithoutSpaces'.repeat(5)}`;
const LONG_PATH = `path/to/some/deeply/nested/module/${'segment'.repeat(20)}.ts`;
const LONG_URL = `https://example.com/${'q'.repeat(150)}`;
const LONG_RESULT = `wrote:${'out/'.repeat(4)}${'generated_file_name'.repeat(8)}.json`;

/**
 * Boxes whose content is wider than they are: a panel or card a text runs out of (over its neighbours), or a
 * scrolled list that cuts what it holds at its edge.
 */
const overflowingBoxes = (page: Page) =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>('.panel, .approval, ol.feed'))
      .filter((el) => el.scrollWidth > el.clientWidth + 1)
      .map(
        (el) => `${el.tagName.toLowerCase()}.${el.className.replace(/ /g, '.')} ${el.scrollWidth}>${el.clientWidth}`,
      ),
  );

/** Long unbroken names wrap inside their card or panel: the page never scrolls sideways, at desktop or phone width. */
describe('the dashboard with long unbroken texts', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('wraps them on the overview, the events, a plan page and a step page at 1280 and 375 px', async () => {
    const { url } = await dashboardNode(cleanups);
    const asker = await dashboardAgent(cleanups, url, LONG_AGENT);
    const waiting = await asker.createPlan({ title: LONG_TITLE, steps: [LONG_PATH, 'Second'] });
    await asker.startPlan({ wait: false, message: `Please approve ${LONG_URL}` });
    const builder = await dashboardAgent(cleanups, url, `builder-${'y'.repeat(50)}`);
    const running = await builder.createPlan({ title: `${LONG_TITLE}_B`, steps: [`${LONG_PATH}/b`] });
    await builder.startPlan({ wait: false });
    await builder.plan_approve({});
    await builder.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    await builder.setStepStatus({ step_id: 'step_1', status: 'completed', result: LONG_RESULT });

    for (const width of [1280, 375]) {
      const { page, errors } = await openDashboard(suite.browser, cleanups, url, { width });
      await page.locator(`.approval[data-plan-id="${waiting.plan_id}"] blockquote`).waitFor();
      await poll(() => page.locator('.feed [data-type="step_completed"]').count()).toBe(1);
      expect(await horizontalOverflow(page), `overview at ${width}`).toBe(0);
      expect(await overflowingBoxes(page), `overview at ${width}`).toEqual([]);

      const pages = [
        [`#/ws/ws/plan/${waiting.plan_id}`, `section.page[data-plan-id="${waiting.plan_id}"]`],
        [`#/ws/ws/plan/${waiting.plan_id}/step/step_1`, 'section.page[data-step-id="step_1"]'],
        [`#/ws/ws/plan/${running.plan_id}/step/step_1`, 'section.page[data-status="completed"]'],
        ['#/ws/ws/events', '.feed [data-type="step_completed"]'],
      ] as const;
      for (const [hash, shown] of pages) {
        await page.evaluate((to) => (window.location.hash = to), hash);
        await page.locator(shown).first().waitFor();
        expect(await horizontalOverflow(page), `${hash} at ${width}`).toBe(0);
        expect(await overflowingBoxes(page), `${hash} at ${width}`).toEqual([]);
      }
      expect(errors).toEqual([]);
    }
  });
});
