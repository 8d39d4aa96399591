import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';
import { browserSuite } from './chromium.ts';

/** Focuses the first element matching `selector` and marks it, so a rebuilt look-alike does not pass for it. */
const focusMarked = (page: Page, selector: string) =>
  page.evaluate((sel) => {
    const el = document.querySelector<HTMLElement & { planhubMarker?: string }>(sel);
    if (!el) throw new Error(`nothing matches ${sel}`);
    el.planhubMarker = 'focused';
    el.focus();
    return el.textContent;
  }, selector);

const focusedMarked = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as (HTMLElement & { planhubMarker?: string }) | null;
    return { tag: el?.tagName.toLowerCase(), marker: el?.planhubMarker, text: el?.textContent };
  });

/** Selects the text of the first element matching `selector`, as a reader dragging over it would. */
const select = (page: Page, selector: string) =>
  page.evaluate((sel) => {
    const range = document.createRange();
    range.selectNodeContents(document.querySelector(sel)!);
    window.getSelection()!.removeAllRanges();
    window.getSelection()!.addRange(range);
    return window.getSelection()!.toString();
  }, selector);

const selection = (page: Page) => page.evaluate(() => window.getSelection()?.toString());

/** The last event the page has drawn: once it moves on, the render of a new event is done. */
const lastDrawn = (page: Page) => page.locator('#app').getAttribute('data-last-event');

/** A page open while agents work: each event redraws what changed, and nothing a reader holds in the rest of it. */
describe('the dashboard under live updates', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  const team = async () => {
    const { url } = await dashboardNode(cleanups, { approvalPolicy: 'auto' });
    const alpha = await dashboardAgent(cleanups, url, 'alpha');
    const beta = await dashboardAgent(cleanups, url, 'beta');
    const plan = await alpha.createPlan({ title: 'Build', steps: ['one', 'two', 'three'] });
    await alpha.startPlan({});
    await alpha.setStepStatus({ step_id: 'step_1', status: 'failed', error: 'ERR_TOKEN_EXPIRED at validate.ts:42' });
    await beta.createPlan({ title: 'Other work', steps: ['a', 'b', 'c', 'd'] });
    await beta.startPlan({});
    return { url, alpha, beta, plan };
  };

  it('keeps the focus on a link of the overview while its agent and another report steps', async () => {
    const { url, alpha, beta } = await team();
    const { page, errors } = await openDashboard(suite.browser, cleanups, url);
    await page.locator('#attention-body a').waitFor();
    const links = ['#agents-body [data-agent-id="alpha"] .steps a[href$="step_3"]', '#attention-body a'];
    // A repeated status with a new result is one more event.
    let pass = 0;
    const reports = [
      () => beta.setStepStatus({ step_id: 'step_1', status: 'in_progress', result: `pass ${pass++}` }),
      () => alpha.setStepStatus({ step_id: 'step_2', status: 'in_progress', result: `pass ${pass++}` }),
    ];
    for (const selector of links)
      for (const report of reports) {
        const text = await focusMarked(page, selector);
        const before = await lastDrawn(page);
        await report();
        await poll(() => lastDrawn(page)).not.toBe(before);
        expect(await focusedMarked(page)).toEqual({ tag: 'a', marker: 'focused', text });
      }
    expect(errors).toEqual([]);
  });

  it('keeps the focus on a step link of a plan page while that plan’s agent works', async () => {
    const { url, alpha, plan } = await team();
    const { page, errors } = await openDashboard(suite.browser, cleanups, url, {
      hash: `#/ws/ws/plan/${plan.plan_id}`,
    });
    await page.locator('#page-h').waitFor();
    const text = await focusMarked(page, '.page li[data-step-id="step_3"] a');
    await alpha.setStepStatus({ step_id: 'step_2', status: 'in_progress' });
    await poll(() => page.locator('.page li[data-step-id="step_2"]').getAttribute('data-status')).toBe('in_progress');
    expect(await focusedMarked(page)).toEqual({ tag: 'a', marker: 'focused', text });
    expect(errors).toEqual([]);
  });

  it('keeps a reader’s text selection in the overview and on a plan page while events arrive', async () => {
    const { url, alpha, beta, plan } = await team();
    const { page, errors } = await openDashboard(suite.browser, cleanups, url);
    const error = '#agents-body li[data-step-id="step_1"] .note.error';
    await page.locator(error).waitFor();
    expect(await select(page, error)).toBe('ERR_TOKEN_EXPIRED at validate.ts:42');
    const before = await lastDrawn(page);
    await beta.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    await poll(() => lastDrawn(page)).not.toBe(before);
    expect(await selection(page)).toBe('ERR_TOKEN_EXPIRED at validate.ts:42');
    // An event of the agent whose card holds the selection: the card is patched, the selected text stays.
    await alpha.setStepStatus({ step_id: 'step_3', status: 'in_progress' });
    await poll(() => page.locator('#agents-body li[data-step-id="step_3"]').first().getAttribute('data-status')).toBe(
      'in_progress',
    );
    expect(await selection(page)).toBe('ERR_TOKEN_EXPIRED at validate.ts:42');

    await page.evaluate((id) => (window.location.hash = `#/ws/ws/plan/${id}`), plan.plan_id);
    await page.locator('#page-h').waitFor();
    expect(await select(page, '#page-h')).toBe('Build');
    await alpha.setStepStatus({ step_id: 'step_2', status: 'in_progress' });
    await poll(() => page.locator('.page li[data-step-id="step_2"]').getAttribute('data-status')).toBe('in_progress');
    expect(await selection(page)).toBe('Build');
    expect(errors).toEqual([]);
  });
});
