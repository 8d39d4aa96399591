import type { ServerConfigInput } from '@planhub/server';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { dashboardAgent, dashboardNode } from './dashboard-node.ts';
import { browserSuite, watchPageErrors } from './chromium.ts';
import { seriousA11yFindings } from './dashboard-checks.ts';

/** What a reader does in the timeline, as the page reports it; a redraw loses all three. */
const readerState = (page: Page) =>
  page.evaluate(() => {
    type Marked = Element & { planhubMarker?: string };
    return {
      lanes: document.querySelector<Marked>('.lanes')?.planhubMarker,
      bar: document.querySelector<Marked>('a.bar[data-step-id="step_2"]')?.planhubMarker,
      selected: window.getSelection()?.toString(),
      focused: (document.activeElement as HTMLElement | null)?.dataset.stepId,
    };
  });

/** The timeline of a page a team keeps open all day: the clock moves its running bars, nothing else. */
describe('the dashboard’s timeline', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  const start = async (config: ServerConfigInput = {}) => (await dashboardNode(cleanups, config)).url;
  const agent = (url: string, agentId: string) => dashboardAgent(cleanups, url, agentId);
  const open = async (url: string) => {
    const page: Page = await suite.browser.newPage({ viewport: { width: 1280, height: 860 } });
    cleanups.push(() => page.close());
    const errors = watchPageErrors(page);
    await page.goto(`${url}/dashboard?workspace=ws&agent=alice&role=user#/ws/ws/timeline`);
    await page.locator('#connection.live').waitFor();
    return { page, errors };
  };

  it('advances a running step each second in place, keeping what a reader focused or selected in it', async () => {
    const url = await start({ approvalPolicy: 'auto' });
    const worker = await agent(url, 'worker');
    await worker.createPlan({ title: 'Long job', steps: ['Build', 'Ship'] });
    await worker.startPlan({});
    await worker.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    await worker.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await worker.setStepStatus({ step_id: 'step_2', status: 'in_progress' });
    const { page, errors } = await open(url);
    const running = page.locator('.bars a.bar[data-step-id="step_2"]');
    await poll(() => running.getAttribute('title')).toMatch(/^step_2 Ship: in progress, started .* so far$/);
    const name = await running.getAttribute('aria-label');
    expect(name).toMatch(/^step_2 Ship: in progress, started \d\d:\d\d:\d\d$/);

    // Marks on nodes a redraw would replace, stand-ins for hover; then focus, then a selection, as a reader makes them.
    await running.focus();
    await page.evaluate(() => {
      type Marked = Element & { planhubMarker?: string };
      document.querySelector<Marked>('.lanes')!.planhubMarker = 'kept';
      document.querySelector<Marked>('a.bar[data-step-id="step_2"]')!.planhubMarker = 'kept';
      const range = document.createRange();
      range.selectNodeContents(document.querySelector('.lane[data-agent-id="worker"] .lane-name')!);
      window.getSelection()!.removeAllRanges();
      window.getSelection()!.addRange(range);
    });
    expect(await readerState(page)).toEqual({ lanes: 'kept', bar: 'kept', selected: 'worker', focused: 'step_2' });

    // Three ticks, seen as the running step's duration and the axis's end (now) moving on; its accessible name stays
    // as it was, so a screen reader has nothing new to announce each second.
    const axisEnd = page.locator('.timeline .axis span').last();
    let tooltip = await running.getAttribute('title');
    const endBefore = await axisEnd.textContent();
    for (let tick = 0; tick < 3; tick++) {
      const before = tooltip;
      await poll(async () => (tooltip = await running.getAttribute('title'))).not.toBe(before);
    }
    expect(tooltip).toMatch(/, \d+ s so far$/);
    expect(await running.getAttribute('aria-label')).toBe(name);
    expect(await axisEnd.textContent()).not.toBe(endBefore);
    expect(await readerState(page)).toEqual({ lanes: 'kept', bar: 'kept', selected: 'worker', focused: 'step_2' });
    expect(await seriousA11yFindings(page)).toEqual([]);

    // A real change is drawn, and the focused bar is found again in the new drawing.
    await worker.setStepStatus({ step_id: 'step_2', status: 'completed', result: 'shipped' });
    await poll(() => running.getAttribute('class')).toBe('bar span status-completed');
    expect(await running.getAttribute('aria-label')).toMatch(/^step_2 Ship: completed, started \d\d:\d\d:\d\d, \d+ s$/);
    expect((await readerState(page)).focused).toBe('step_2');

    // So is a step of an agent the timeline did not show yet.
    const newcomer = await agent(url, 'newcomer');
    await newcomer.createPlan({ title: 'Late start', steps: ['Begin'] });
    await newcomer.startPlan({});
    await newcomer.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    await page.locator('.lane[data-agent-id="newcomer"] a.bar.status-in_progress').waitFor();
    expect(errors).toEqual([]);
  });
});
