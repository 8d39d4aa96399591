import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';
import { browserSuite } from './chromium.ts';
import { horizontalOverflow, seriousA11yFindings } from './dashboard-checks.ts';

/**
 * The graph on a phone: a chain across three agents is wider than 375 px. It used to be scaled down to fit (×0.44,
 * its 12px text near 7px); it stays at its own size in a region that scrolls sideways, and the page does not.
 */
describe('the dashboard’s dependency graph on a narrow screen', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('keeps the drawing at full size in a named, focusable region that scrolls sideways at 375 px', async () => {
    const { url } = await dashboardNode(cleanups, { approvalPolicy: 'auto' });
    const a = await dashboardAgent(cleanups, url, 'chain-a');
    const b = await dashboardAgent(cleanups, url, 'chain-b');
    const c = await dashboardAgent(cleanups, url, 'chain-c');
    await a.createPlan({ title: 'Chain A', steps: ['Build artefact'] });
    await a.startPlan({});
    await b.createPlan({ title: 'Chain B', steps: ['Prepare'] });
    await b.startPlan({});
    await c.createPlan({ title: 'Chain C', steps: ['Prepare'] });
    await c.startPlan({});
    await b.addDependentStep({
      description: 'Test artefact',
      depends_on: [{ agent_id: 'chain-a', step_id: 'step_1' }],
    });
    await c.addDependentStep({ description: 'Deploy it', depends_on: [{ agent_id: 'chain-b', step_id: 'step_2' }] });

    for (const hash of ['#/ws/ws/graph', '#/ws/ws']) {
      const { page, errors } = await openDashboard(suite.browser, cleanups, url, { hash, width: 375 });
      await poll(() => page.locator('.graph').getAttribute('data-shape')).toBe('3');
      const fit = await page.evaluate(() => {
        const region = document.querySelector<HTMLElement>('.graph')!;
        const svg = region.querySelector('svg')!;
        const title = region.querySelector('.gtitle')!;
        return {
          scale: svg.getBoundingClientRect().width / Number(svg.getAttribute('width')),
          textHeight: title.getBoundingClientRect().height,
          fontSize: parseFloat(getComputedStyle(title).fontSize),
          scrolls: region.scrollWidth > region.clientWidth,
        };
      });
      expect(fit.scale, hash).toBeGreaterThanOrEqual(1);
      // A glyph box is taller than the font size: scaled ×0.44 it was about 7px for 12px text.
      expect(fit.textHeight, hash).toBeGreaterThanOrEqual(fit.fontSize);
      expect(fit.scrolls, hash).toBe(true);
      expect(await horizontalOverflow(page), hash).toBe(0);

      const region = page.locator('.graph');
      expect(await region.getAttribute('tabindex')).toBe('0');
      expect(await region.getAttribute('aria-label')).toMatch(/graph/i);
      await region.focus();
      await page.keyboard.press('ArrowRight');
      await poll(() => region.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
      expect(await seriousA11yFindings(page), hash).toEqual([]);
      expect(errors).toEqual([]);
    }
  });
});
