import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';
import { browserSuite } from './chromium.ts';
import { seriousA11yFindings } from './dashboard-checks.ts';

/** What a reader holds on the page, as it reports it; a rebuild of the page loses all of it. */
const readerState = (page: Page) =>
  page.evaluate(() => {
    type Marked = Element & { planhubMarker?: string };
    return {
      section: document.querySelector<Marked>('section.page')?.planhubMarker,
      focused: document.activeElement?.textContent,
      selected: window.getSelection()?.toString(),
    };
  });

/** Every accessible name and description written as an attribute: none of them may change with the clock. */
const names = (page: Page) =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll('#main [aria-label], #main [title], #main [aria-description]')).map((el) =>
      ['aria-label', 'title', 'aria-description'].map((a) => el.getAttribute(a)).join('|'),
    ),
  );

/** A running step's page left open: its durations count up with the clock, and nothing else on it moves. */
describe('the dashboard’s step page clock', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  const running = async () => {
    const { url } = await dashboardNode(cleanups, { approvalPolicy: 'auto' });
    const worker = await dashboardAgent(cleanups, url, 'worker');
    const { plan_id } = await worker.createPlan({ title: 'Long job', steps: ['Build', 'Ship'] });
    await worker.startPlan({});
    await worker.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    return { url, plan_id };
  };
  const open = (url: string, hash: string) => openDashboard(suite.browser, cleanups, url, { hash });

  it('counts a running step’s “Took” and “so far” up each second, in place, with no name changing', async () => {
    const { url, plan_id } = await running();
    const { page, errors } = await open(url, `#/ws/ws/plan/${plan_id}/step/step_1`);
    const took = page.locator('dl.facts .kv', { hasText: 'Took' }).locator('dd');
    const soFar = page.locator('ol.history li').last();
    await poll(() => soFar.textContent()).toMatch(/in progress for .* so far$/);

    // A link focused, a selection made and a mark on the section, as a reader leaves them.
    await page.locator('section.page p a').focus();
    await page.evaluate(() => {
      (document.querySelector('section.page') as Element & { planhubMarker?: string }).planhubMarker = 'kept';
      const range = document.createRange();
      range.selectNodeContents(document.getElementById('page-h')!);
      window.getSelection()!.removeAllRanges();
      window.getSelection()!.addRange(range);
    });
    const held = { section: 'kept', focused: 'Long job', selected: 'step_1: Build' };
    expect(await readerState(page)).toEqual(held);
    const namesBefore = await names(page);

    let tookText = await took.textContent();
    let soFarText = await soFar.textContent();
    for (let tick = 0; tick < 2; tick++) {
      const [tookBefore, soFarBefore] = [tookText, soFarText];
      await poll(async () => (tookText = await took.textContent())).not.toBe(tookBefore);
      await poll(async () => (soFarText = await soFar.textContent())).not.toBe(soFarBefore);
    }
    expect(tookText).toMatch(/^\d+ s$/);
    expect(soFarText).toMatch(/in progress for \d+ s so far$/);
    expect(await readerState(page)).toEqual(held);
    expect(await names(page)).toEqual(namesBefore);
    expect(await seriousA11yFindings(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('counts a running step up on its plan page too', async () => {
    const { url, plan_id } = await running();
    const { page, errors } = await open(url, `#/ws/ws/plan/${plan_id}`);
    const line = page.locator('section.page li.step[data-step-id="step_1"]');
    await line.waitFor();
    let text = await line.textContent();
    for (let tick = 0; tick < 2; tick++) {
      const before = text;
      await poll(async () => (text = await line.textContent())).not.toBe(before);
    }
    expect(text).toMatch(/\d+ s$/);
    expect(errors).toEqual([]);
  });
});
