import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { PlanHubClient } from '@planhub/client-sdk';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { poll } from '../helpers/eventually.ts';
import { launchChromium, watchPageErrors } from './chromium.ts';
import { docScreenshot, horizontalOverflow, seriousA11yFindings } from './dashboard-checks.ts';

const WIDE = { width: 1280, height: 860 };
const NARROW = { width: 420, height: 860 };
const TEST_DIR = fileURLToPath(new URL('..', import.meta.url));

/** The dashboard against a live team of SDK agents on two server processes sharing one Redis. */
describe('the dashboard with a team on two nodes', () => {
  let browser: Browser;
  let cluster: Cluster;
  const pages: Page[] = [];
  const errors: string[][] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    cluster = await startCluster({
      nodes: 2,
      env: { PLANHUB_APPROVAL_POLICY: 'auto', PLANHUB_PRESENCE_HEARTBEAT_MS: '500' },
    });
  });
  afterAll(async () => {
    await browser.close();
    await cluster.close();
  });
  afterEach(async () => {
    for (const page of pages.splice(0)) await page.close();
    expect(errors.splice(0).flat()).toEqual([]);
  });

  const open = async (hash = '', viewport = WIDE) => {
    const page = await browser.newPage({ viewport });
    pages.push(page);
    errors.push(watchPageErrors(page));
    await page.goto(`${cluster.urls[0]}/dashboard?workspace=ws&agent=alice&role=user${hash}`);
    await page.locator('#connection.live').waitFor();
    return page;
  };
  const go = async (page: Page, hash: string, view: string) => {
    await page.evaluate((h) => (window.location.hash = h), hash);
    await poll(() => page.locator('#app').getAttribute('data-view')).toBe(view);
  };
  const noSeriousFindings = async (page: Page) => expect(await seriousA11yFindings(page)).toEqual([]);

  it('redraws the graph when a step unblocks and shows the output delivered from the other node on the step page', async () => {
    const implementer: PlanHubClient = await cluster.client('implementer', { node: 1 });
    const main = await cluster.client('main', { node: 0 });
    await implementer.createPlan({ title: 'Implement login', steps: ['Write the handler', 'Run the tests'] });
    await implementer.startPlan({});
    await implementer.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    await implementer.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'handler written' });
    await main.createPlan({ title: 'Ship login', steps: ['Spawn the implementer'] });
    const { plan_id: shipPlan } = await main.startPlan({});
    await main.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    await main.addDependentStep({
      description: 'Review the implementation',
      depends_on: [{ agent_id: 'implementer', step_id: 'step_2' }],
    });

    const page = await open();
    const waiting = page.locator('.graph a.gnode[data-node="main:step_2"]');
    const target = page.locator('.graph a.gnode[data-node="implementer:step_2"]');
    await poll(() => waiting.getAttribute('data-status')).toBe('blocked');
    await poll(() => target.getAttribute('data-status')).toBe('pending');
    await poll(() => page.locator('.graph path.gedge').getAttribute('class')).toBe('gedge open');
    await implementer.setStepStatus({ step_id: 'step_2', status: 'in_progress' });
    await poll(() => target.getAttribute('data-status')).toBe('in_progress');
    await docScreenshot(page, 'overview-blocked');

    await implementer.completeStepWithOutput({
      step_id: 'step_2',
      output: { verdict: 'APPROVE', tests: 42 },
      result: 'tests pass',
    });
    await poll(() => waiting.getAttribute('data-status')).toBe('pending');
    await poll(() => target.getAttribute('data-status')).toBe('completed');
    await poll(() => page.locator('.graph path.gedge').getAttribute('class')).toBe('gedge resolved');

    await waiting.click();
    await poll(() => page.evaluate(() => window.location.hash)).toBe(
      `#/ws/ws/plan/${encodeURIComponent(shipPlan)}/step/step_2`,
    );
    const received = page.locator('.received [data-output="implementer:step_2"]');
    await poll(() => received.textContent()).toContain('From implementer · step_2');
    await received.locator('summary').click();
    await poll(() => received.locator('pre').textContent()).toContain('"verdict": "APPROVE"');
    await poll(() => page.locator('.history li').evaluateAll((li) => li.map((l) => l.dataset.status))).toEqual([
      'pending',
      'blocked',
      'pending',
    ]);
    await noSeriousFindings(page);
    await docScreenshot(page, 'step');
  });

  it('has no sideways scroll at 420 px and no serious accessibility findings on any view', async () => {
    const main = await cluster.client('main', { node: 0 });
    const { plan_id } = await main.getPlanStatus({});
    for (const viewport of [WIDE, NARROW]) {
      const page = await open('', viewport);
      await page.locator('.graph svg').waitFor();
      const views: [string, string, string][] = [
        ['#/ws/ws', 'overview', 'overview'],
        ['#/ws/ws/graph', 'graph', 'graph'],
        ['#/ws/ws/timeline', 'timeline', 'timeline'],
        ['#/ws/ws/events', 'events', 'events'],
        ['#/workspaces', 'workspaces', 'workspaces'],
        [`#/ws/ws/plan/${plan_id}`, 'plan', 'plan'],
        [`#/ws/ws/plan/${plan_id}/step/step_2`, 'step', 'step'],
      ];
      for (const [hash, view, name] of views) {
        await go(page, hash, view);
        if (view === 'plan' || view === 'step') await page.locator('#page-h').waitFor();
        if (view === 'timeline') await page.locator('.bars .bar').first().waitFor();
        if (view === 'workspaces') await page.locator('.workspaces a').first().waitFor();
        expect(await horizontalOverflow(page), `${name} at ${viewport.width} px`).toBeLessThanOrEqual(0);
        await noSeriousFindings(page);
        await docScreenshot(page, name);
      }
      // The connection badge stays in sight at the top of a long page.
      await go(page, '#/ws/ws', 'overview');
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      const badge = await page.locator('#connection').boundingBox();
      expect(badge && badge.y >= 0 && badge.y < 120).toBe(true);
    }
  });

  it('shows an agent offline once its process is killed', async () => {
    const child = spawn(
      process.execPath,
      // The SDK resolves to its sources only under the workspace's condition (a fresh clone has no dist/).
      ['--conditions=planhub-source', '--import', 'tsx', 'browser/dashboard-agent.ts', cluster.urls[1]!, 'worker'],
      {
        cwd: TEST_DIR,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = once(child, 'exit');
    try {
      const lines = createInterface({ input: child.stdout });
      await new Promise<void>((resolve) => lines.on('line', (l) => l === 'ready' && resolve()));
      const page = await open();
      const presence = page.locator('[data-agent-id="worker"] [data-presence]');
      await poll(() => presence.getAttribute('data-presence')).toBe('online');
      child.kill('SIGKILL');
      await exited;
      await poll(() => presence.getAttribute('data-presence')).toBe('offline');
      expect(await presence.textContent()).toMatch(/^offline since \d\d:\d\d:\d\d$/);
      await poll(() => page.locator('.feed [data-type="agent_offline"]').count()).toBeGreaterThan(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('pages back through the server log to an event older than the page holds, and folds a 60-step plan', async () => {
    const old = await cluster.client('archivist', { node: 1 });
    await old.createPlan({ title: 'Needle in the log', steps: ['Find it'] });
    await old.completePlan({ status: 'cancelled' });
    const busy = await cluster.client('busy', { node: 0 });
    const steps = Array.from({ length: 60 }, (_, i) => `Chore ${i + 1}`);
    const { plan_id } = await busy.createPlan({ title: 'Sixty chores', steps });
    await busy.startPlan({});
    for (let i = 1; i < 60; i++) {
      await busy.setStepStatus({ step_id: `step_${i}`, status: 'in_progress' });
      await busy.setStepStatus({ step_id: `step_${i}`, status: 'completed' });
    }

    const page = await open('#/ws/ws/events');
    await page.getByLabel('Show events mentioning').fill('needle');
    const empty = page.locator('.feed [data-empty="filtered"]');
    await poll(() => empty.textContent()).toMatch(/No matching events in the last \d+ scanned; load older/);
    await page.getByRole('button', { name: 'Load older' }).click();
    await poll(() => page.locator('.feed .event').evaluateAll((li) => li.map((l) => l.dataset.type))).toContain(
      'plan_created',
    );
    expect(await page.locator('.feed .event').first().textContent()).toContain('Needle in the log');
    await docScreenshot(page, 'events-paged');

    await go(page, `#/ws/ws/plan/${plan_id}`, 'plan');
    await poll(() => page.locator('details.folded').getAttribute('data-folded')).toBe('59');
    expect(await page.locator('section.page > ol.steps > li').count()).toBe(1);
    expect(await page.locator('details.folded').getAttribute('open')).toBeNull();
  });
});
