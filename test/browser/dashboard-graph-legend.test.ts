import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';
import { browserSuite } from './chromium.ts';
import { seriousA11yFindings } from './dashboard-checks.ts';

const LONG_AGENT = 'reviewer-with-a-rather-long-agent-name-42';
const LONG_DESCRIPTION =
  'Consume item 12 of the shared queue, check it against the schema and write the result back to the store';

/** The graph explains itself: a visible key, arrows from prerequisite to dependent, nodes named in full. */
describe('the dashboard’s dependency graph, explained', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('shows a legend and points each arrow from the step that must finish first to the step that waits', async () => {
    const { url } = await dashboardNode(cleanups, { approvalPolicy: 'auto' });
    const build = await dashboardAgent(cleanups, url, 'build');
    const test = await dashboardAgent(cleanups, url, 'test');
    await build.createPlan({ title: 'Build', steps: ['Build'] });
    await build.startPlan({});
    await test.createPlan({ title: 'Test', steps: ['Prepare'] });
    await test.startPlan({});
    await test.addDependentStep({ description: 'Test', depends_on: [{ agent_id: 'build', step_id: 'step_1' }] });

    const { page, errors } = await openDashboard(suite.browser, cleanups, url, { hash: '#/ws/ws/graph' });
    await poll(() => page.locator('.graph').getAttribute('data-shape')).toBe('2');

    const legend = page.locator('.graph-legend');
    expect(await legend.isVisible()).toBe(true);
    const key = (await legend.textContent()) ?? '';
    expect(key).toMatch(/from the step that must finish first to the step that waits/);
    expect(key).toMatch(/solid: resolved/);
    expect(key).toMatch(/dashed: still waiting/);
    expect(key).toMatch(/dotted: given up/);
    expect(await page.locator('.graph svg').getAttribute('aria-label')).toMatch(
      /from the step that must finish first to the step that waits/,
    );

    // The arrowhead (the path's end) touches the waiting step; the step waited on sits to its left.
    const arrow = await page.evaluate(() => {
      const path = document.querySelector('path.gedge')!;
      const [waiter = '', target = ''] = (path.getAttribute('data-id') ?? '').split('\u0001');
      const end = (path.getAttribute('d') ?? '')
        .trim()
        .split(/[ML ]+/)
        .filter(Boolean)
        .pop()!
        .split(',')
        .map(Number);
      const box = (id: string) => {
        const rect = Array.from(document.querySelectorAll<SVGAElement>('a.gnode'))
          .find((a) => a.getAttribute('data-id') === id)!
          .querySelector('rect')!;
        return { x: Number(rect.getAttribute('x')), y: Number(rect.getAttribute('y')), w: 216, h: 46 };
      };
      const w = box(waiter);
      const t = box(target);
      const near = (b: typeof w) =>
        end[0]! >= b.x - 2 && end[0]! <= b.x + b.w + 2 && end[1]! >= b.y - 2 && end[1]! <= b.y + b.h + 2;
      return { endsAtWaiter: near(w), endsAtTarget: near(t), targetLeft: t.x < w.x };
    });
    expect(arrow).toEqual({ endsAtWaiter: true, endsAtTarget: false, targetLeft: true });
    expect(await seriousA11yFindings(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('names each node in full (id, description, agent) with a tooltip, and cuts only the description', async () => {
    const { url } = await dashboardNode(cleanups, { approvalPolicy: 'auto' });
    const impl = await dashboardAgent(cleanups, url, 'impl');
    const rev = await dashboardAgent(cleanups, url, LONG_AGENT);
    await impl.createPlan({ title: 'Impl', steps: ['Write'] });
    await impl.startPlan({});
    await rev.createPlan({ title: 'Queue', steps: Array.from({ length: 11 }, (_, i) => `Item ${i + 1}`) });
    await rev.startPlan({});
    await rev.addDependentStep({
      description: LONG_DESCRIPTION,
      depends_on: [{ agent_id: 'impl', step_id: 'step_1' }],
    });

    const { page, errors } = await openDashboard(suite.browser, cleanups, url, { hash: '#/ws/ws/graph' });
    await poll(() => page.locator('.graph').getAttribute('data-shape')).toBe('2');
    const node = page.locator(`a.gnode[data-node="${LONG_AGENT}:step_12"]`);
    const name = (await node.getAttribute('aria-label')) ?? '';
    expect(name).toContain(`step_12 ${LONG_DESCRIPTION}`);
    // It starts with the text shown, as axe's label-in-name check (run below) wants.
    expect(name.startsWith('step_12 Consume item 12')).toBe(true);
    expect(name).toContain(LONG_AGENT);
    expect(await page.getByRole('link', { name: `step_12 ${LONG_DESCRIPTION}`, exact: false }).count()).toBe(1);
    expect(await node.evaluate((a) => a.parentElement?.querySelector(':scope > title')?.textContent)).toBe(name);

    const title = (await node.locator('.gtitle').textContent()) ?? '';
    expect(title.startsWith('step_12 Consume item 12')).toBe(true);
    expect(title.endsWith('…')).toBe(true);
    // The cut line fits inside its node.
    const fits = await node.evaluate((a) => {
      const text = a.querySelector<SVGTextElement>('.gtitle')!;
      const rect = a.querySelector('rect')!;
      return text.getComputedTextLength() <= Number(rect.getAttribute('width')) - 8;
    });
    expect(fits).toBe(true);
    expect(await page.locator('text.gagent title').allTextContents()).toContain(LONG_AGENT);

    // A step waited on before its agent added it is drawn dashed; its name says why.
    await impl.addDependentStep({ description: 'Merge', depends_on: [{ agent_id: 'late', step_id: 'step_9' }] });
    const missing = page.locator('a.gnode[data-node="late:step_9"]');
    await poll(() => missing.getAttribute('aria-label')).toBe('step_9 not started, agent late, not created yet');
    expect(await seriousA11yFindings(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
