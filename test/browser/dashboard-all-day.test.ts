import { createServer, type ServerConfigInput, type Store } from '@planhub/server';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { dashboardAgent, dashboardNode } from './dashboard-node.ts';
import { browserSuite, watchPageErrors } from './chromium.ts';
import { seriousA11yFindings } from './dashboard-checks.ts';

/** A page a team keeps open all day, mostly in a background tab: what it tells, and what it keeps still. */
describe('dashboard left open all day', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  const start = (config: ServerConfigInput = {}, store?: Store) => dashboardNode(cleanups, config, store);
  const agent = (url: string, agentId: string) => dashboardAgent(cleanups, url, agentId);
  const open = async (url: string, viewport = { width: 1280, height: 860 }) => {
    const page: Page = await suite.browser.newPage({ viewport });
    cleanups.push(() => page.close());
    const errors = watchPageErrors(page);
    await page.goto(`${url}/dashboard?workspace=ws&agent=alice&role=user`);
    await page.locator('#connection.live').waitFor();
    return { page, errors };
  };
  const go = async (page: Page, hash: string) => {
    await page.evaluate((to) => (window.location.hash = to), hash);
    await poll(() => page.locator('#app').getAttribute('data-view')).toBe(hash.split('/')[3] ?? 'overview');
  };

  it('shows in the tab’s title and icon how many decisions wait, so a background tab still says so', async () => {
    const { url } = await start();
    const { page, errors } = await open(url);
    await poll(() => page.title()).toBe('PlanHub · ws');
    const icon = page.locator('link[rel="icon"]');
    expect(await icon.getAttribute('data-state')).toBe('quiet');

    const planner = await agent(url, 'planner');
    const first = await planner.createPlan({ title: 'Roll out', steps: ['Canary'] });
    await planner.startPlan({ plan_id: first.plan_id, wait: false });
    await poll(() => page.title()).toBe('(1) PlanHub · ws');
    expect(await icon.getAttribute('data-state')).toBe('waiting');
    expect(await icon.getAttribute('href')).toMatch(/^data:image\/svg\+xml,/);
    const cleaner = await agent(url, 'cleaner');
    const second = await cleaner.createPlan({ title: 'Clean up', steps: ['Drop the old table'] });
    await cleaner.startPlan({ plan_id: second.plan_id, wait: false });
    await poll(() => page.title()).toBe('(2) PlanHub · ws');

    await page.locator(`.approval[data-plan-id="${first.plan_id}"] button.approve`).click();
    await poll(() => page.title()).toBe('(1) PlanHub · ws');
    await cleaner.plan_approve({ plan_id: second.plan_id });
    await poll(() => page.title()).toBe('PlanHub · ws');
    expect(await icon.getAttribute('data-state')).toBe('quiet');
    expect(errors).toEqual([]);
  });

  it('keeps the caret where a person is editing a rejection reason while the team’s events arrive', async () => {
    const { url } = await start();
    const { page, errors } = await open(url);
    const planner = await agent(url, 'planner');
    const worker = await agent(url, 'worker');
    const rollOut = await planner.createPlan({ title: 'Roll out', steps: ['Canary'] });
    await planner.startPlan({ wait: false });
    await worker.createPlan({ title: 'Busy', steps: ['one', 'two'] });
    await worker.startPlan({ wait: false });
    await worker.plan_approve({});
    // The worker's card leaves once the page hears of its approval; until then two cards ask for a reason.
    await poll(() => page.locator('.approval').count()).toBe(1);

    const reason = page.locator(`.approval[data-plan-id="${rollOut.plan_id}"] input`);
    await reason.click();
    await page.keyboard.type('too risky');
    await page.keyboard.press('Home');
    await page.keyboard.type('Still ');
    const shown = page.locator('.feed [data-type="step_completed"]');
    await worker.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await poll(() => shown.count()).toBe(1);
    await page.keyboard.type('far ');
    expect(await reason.inputValue()).toBe('Still far too risky');
    expect(errors).toEqual([]);
  });

  it('keeps the event a reader scrolled to in place, and the link they focused, while newer events arrive', async () => {
    const { url } = await start({ approvalPolicy: 'auto' });
    const worker = await agent(url, 'worker');
    const steps = Array.from({ length: 40 }, (_, i) => `Part ${i + 1}`);
    await worker.createPlan({ title: 'Many parts', steps });
    await worker.startPlan({});
    for (let i = 1; i <= 30; i++) await worker.setStepStatus({ step_id: `step_${i}`, status: 'completed' });
    const { page, errors } = await open(url);
    const list = page.locator('ol.feed');
    const items = list.locator('.event');
    await poll(() => items.count()).toBeGreaterThan(30);

    // The reader scrolls down the feed and tabs to an older event's link.
    await list.evaluate((el) => (el.scrollTop = 400));
    const read = await list.evaluate((el) => {
      const top = el.getBoundingClientRect().top;
      const li = Array.from(el.querySelectorAll<HTMLElement>('.event')).find(
        (e) => e.getBoundingClientRect().top > top,
      )!;
      li.querySelector('a')!.focus();
      return { id: li.dataset.eventId!, top: li.getBoundingClientRect().top };
    });
    const topOf = (id: string) =>
      list.locator(`[data-event-id="${id}"]`).evaluate((li) => li.getBoundingClientRect().top);
    const newest = () => items.first().getAttribute('data-event-id');
    const before = await newest();

    for (let i = 31; i <= 35; i++) await worker.setStepStatus({ step_id: `step_${i}`, status: 'completed' });
    await poll(() => page.locator('.feed [data-type="step_completed"]').count()).toBe(35);
    expect(await newest()).not.toBe(before);
    // Within 3 px (scroll offsets round, row heights do not); five new rows would have moved it over 100.
    expect(Math.abs((await topOf(read.id)) - read.top)).toBeLessThan(3);
    expect(await page.evaluate(() => document.activeElement?.closest('li')?.dataset.eventId)).toBe(read.id);

    // Back at the top, the list follows the newest events.
    await list.evaluate((el) => (el.scrollTop = 0));
    await worker.setStepStatus({ step_id: 'step_36', status: 'completed' });
    await poll(() => page.locator('.feed [data-type="step_completed"]').count()).toBe(36);
    expect(await list.evaluate((el) => el.scrollTop)).toBe(0);
    expect(await items.first().getAttribute('data-type')).toBe('step_completed');
    expect(errors).toEqual([]);
  });

  it('says since when it is disconnected and how old what it shows is, until it has caught up after a restart', async () => {
    const first = await start({ approvalPolicy: 'auto' });
    const { page, errors } = await open(first.url);
    const worker = await agent(first.url, 'worker');
    await worker.createPlan({ title: 'Survive a restart', steps: ['one', 'two'] });
    await worker.startPlan({});
    await poll(() => page.locator('.feed [data-type="plan_started"]').count()).toBe(1);
    const stale = page.locator('#stale');
    expect(await stale.isVisible()).toBe(false);
    const lastShown = await page.locator('.feed .event time').first().textContent();

    await first.close();
    await stale.waitFor({ state: 'visible' });
    const said = await stale.textContent();
    expect(said).toMatch(/^Not connected since \d\d:\d\d:\d\d \S+ \(\d+ s ago\)\./);
    expect(said).toContain(`Shown as of the last event, at ${lastShown}`);
    expect(await page.title()).toBe('Disconnected · PlanHub · ws');
    expect(await page.locator('link[rel="icon"]').getAttribute('data-state')).toBe('disconnected');
    // In the sticky header: seen by a reader who scrolled down the page.
    expect(await stale.evaluate((el) => el.closest('header') !== null)).toBe(true);
    expect(await seriousA11yFindings(page)).toEqual([]);

    // The same port and store, as when the server process is restarted.
    const port = Number(new URL(first.url).port);
    const again = createServer({ port, logLevel: 'silent', approvalPolicy: 'auto' }, { store: first.store });
    await again.listen();
    cleanups.push(() => again.close());
    await page.locator('#connection.live').waitFor({ timeout: 20_000 });
    await stale.waitFor({ state: 'hidden' });
    await poll(() => page.title()).toBe('PlanHub · ws');
    const back = await agent(first.url, 'worker-2');
    await back.createPlan({ title: 'After the restart', steps: ['one'] });
    await poll(() => page.locator('.feed [data-type="plan_created"]').count()).toBe(2);
    // Chromium logs each refused WebSocket while the server is down; that is the outage, not a fault of the page.
    expect(errors.filter((e) => !e.includes('WebSocket'))).toEqual([]);
  });

  it('re-renders only the stale banner each second while disconnected, not the sections under it', async () => {
    const server = await start({ approvalPolicy: 'auto' });
    const { page, errors } = await open(server.url);
    const worker = await agent(server.url, 'worker');
    await worker.createPlan({ title: 'Hold still', steps: ['one'] });
    await worker.startPlan({});
    const card = page.locator('#agents-body [data-agent-id="worker"]');
    await card.waitFor();
    await server.close();
    const stale = page.locator('#stale');
    await stale.waitFor({ state: 'visible' });
    // A node the render would rebuild loses an attribute set on it: a stand-in for a reader's selection or hover.
    await card.evaluate((el) => el.setAttribute('data-marker', 'kept'));
    let said = await stale.textContent();
    for (let tick = 0; tick < 3; tick++) {
      const before = said;
      await poll(async () => (said = await stale.textContent())).not.toBe(before);
    }
    expect(await page.locator('#agents-body [data-marker="kept"]').count()).toBe(1);
    expect(await page.title()).toBe('Disconnected · PlanHub · ws');
    expect(errors.filter((e) => !e.includes('WebSocket'))).toEqual([]);
  });

  it('shows the older events "Load older" brings once 200 or more events are shown, and says how many', async () => {
    // Some 300 calls in a burst: the default call rate would refuse a third of them.
    const { url } = await start({ approvalPolicy: 'auto', limits: { callsPerSecond: 2000 } });
    const archivist = await agent(url, 'archivist');
    await archivist.createPlan({ title: 'Needle in the log', steps: ['Find it'] });
    const worker = await agent(url, 'worker');
    const steps = Array.from({ length: 140 }, (_, i) => `Part ${i + 1}`);
    await worker.createPlan({ title: 'Many parts', steps });
    await worker.startPlan({});
    const work = async (from: number, to: number) => {
      for (let i = from; i <= to; i++) {
        await worker.setStepStatus({ step_id: `step_${i}`, status: 'in_progress' });
        await worker.setStepStatus({ step_id: `step_${i}`, status: 'completed' });
      }
    };
    // The page reads the newest 100 on load: the needle stays on the server, behind 120 newer events.
    await work(1, 60);
    const { page, errors } = await open(url, { width: 1280, height: 860 });
    await go(page, '#/ws/ws/events');
    await work(61, 140);
    const events = page.locator('.feed .event');
    const count = page.locator('#feed-count');
    await poll(() => count.textContent()).toMatch(/^Showing the newest 200 of 2\d\d matching events loaded\.$/);
    expect(await events.count()).toBe(200);

    const needle = page.locator('.feed .event', { hasText: 'Needle in the log' });
    const button = page.locator('#feed-older');
    for (let click = 0; click < 6 && (await needle.count()) === 0; click++) {
      const before = await count.textContent();
      await button.click();
      // The button goes once the server has nothing older.
      const done = async () => (await button.count()) === 0 || (await button.getAttribute('aria-disabled')) !== 'true';
      await poll(async () => (await count.textContent()) !== before && (await done())).toBe(true);
    }
    expect(await needle.count()).toBeGreaterThan(0);
    const shown = await events.count();
    expect(await count.textContent()).toBe(`Showing all ${shown} matching events loaded.`);

    // Live events still keep the list to what the reader asked for: the oldest shown makes way for the newest.
    const latecomer = await agent(url, 'latecomer');
    await latecomer.createPlan({ title: 'One more', steps: ['last'] });
    await poll(() => events.first().textContent()).toContain('One more');
    expect(await events.count()).toBe(shown);
    expect(errors).toEqual([]);
  });

  it('lists the failed steps and the running steps of offline agents under Needs attention, each linking to it', async () => {
    const { url } = await start({ approvalPolicy: 'auto', presenceHeartbeatMs: 200 });
    const { page, errors } = await open(url, { width: 390, height: 844 });
    const section = page.locator('#attention');
    await poll(() => section.textContent()).toContain('No step has failed');

    const tester = await agent(url, 'test-writer');
    await tester.createPlan({ title: 'Write the tests', steps: ['Write', 'Run'] });
    await tester.startPlan({});
    await tester.setStepStatus({ step_id: 'step_1', status: 'failed', error: 'does not compile: invoice.ts:42' });
    const gone = await agent(url, 'migration-runner-with-a-name-longer-than-a-phone-is-wide');
    await gone.createPlan({ title: 'Migrate', steps: ['Copy the rows'] });
    await gone.startPlan({});
    await gone.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    gone.close();

    const failed = section.locator('li[data-why="failed"]');
    await poll(() => failed.textContent()).toContain('does not compile: invoice.ts:42');
    expect(await failed.getAttribute('data-agent-id')).toBe('test-writer');
    const offline = section.locator('li[data-why="agent offline"]');
    await poll(() => offline.count()).toBe(1);
    expect(await offline.textContent()).toContain('last seen');

    await failed.getByRole('link', { name: 'Write the tests › step_1: Write' }).click();
    await poll(() => page.locator('#app').getAttribute('data-view')).toBe('step');
    await page.goBack();
    await poll(() => page.locator('#app').getAttribute('data-view')).toBe('overview');
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth)).toBe(0);
    expect(await seriousA11yFindings(page)).toEqual([]);

    // A plan its agent ended is no longer waiting on anyone.
    await tester.completePlan({ status: 'failed', summary: 'gave up' });
    await poll(() => failed.count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
