import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { browserSuite } from './chromium.ts';
import { horizontalOverflow, seriousA11yFindings } from './dashboard-checks.ts';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';

/** Past what a card shows of an approach: the page must hold it, the card must say it cut it. */
const TAIL = 'and only then switch the readers over.';
const APPROACH = `DROP the old tables first, then backfill <img src=x onerror="document.title='pwned'"> ${'from the ledger export, batch by batch, '.repeat(8)}${TAIL}`;
const MIGRATION = {
  summary: 'Move billing to the new API',
  approach: APPROACH,
  alternatives_considered: ['Dual write for a month'],
  risks: [
    'RISK: all invoices lost if the backfill fails',
    { risk: 'Downtime', mitigation: 'run it at night' },
    'Reports lag for a day',
    'Old exports stop working',
    'The fifth risk, shown on the page only',
  ],
  files_to_create: ['src/billing/new-client.ts'],
  files_to_modify: ['src/billing.ts'],
  tests_to_write: ['backfill keeps every invoice'],
  estimated_complexity: 'large' as const,
  steps: [
    { id: 1, description: 'Drop tables', files: ['db/schema.sql'], verification: 'psql -c "\\dt"' },
    { id: 2, description: 'Backfill', depends_on: [1], verification: 'npm test -- billing' },
  ],
};

/** Whether any element was made from agent text: an <img> anywhere would be the approach parsed as HTML. */
const images = (page: Page) => page.locator('img').count();

/**
 * A 002 plan is submitted with an approach, risks, files and each step's verification. The person who approves it on
 * the dashboard sees them: they used to get the title, summary and step descriptions only.
 */
describe('the dashboard’s 002 plans', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('shows the approach, risks, files and verification on the approval card, and all of it on the plan and step pages', async () => {
    const { url } = await dashboardNode(cleanups);
    const { page, errors } = await openDashboard(suite.browser, cleanups, url);
    const agent = await dashboardAgent(cleanups, url, 'modeagent');
    await agent.plan_enter({ goal: 'Migrate billing' });
    const { plan_id } = await agent.plan_exit({ plan: MIGRATION });

    // The server's read of the plan carries the object the agent submitted.
    const status = await agent.getPlanStatus({ plan_id });
    expect(status.plan_mode?.approach).toBe(APPROACH);
    expect(status.plan_mode?.steps.map((s) => [s.step_id, s.files, s.verification])).toEqual([
      ['step_1', ['db/schema.sql'], 'psql -c "\\dt"'],
      ['step_2', [], 'npm test -- billing'],
    ]);

    const card = page.locator(`.approval[data-plan-id="${plan_id}"]`);
    const facts = card.locator('dl.plan-mode');
    // The card is there either way (title, summary, steps); what it shows of the plan is what is checked.
    await poll(() => card.textContent()).toContain('DROP the old tables first');
    const text = (await card.textContent()) ?? '';
    expect(text).toContain('RISK: all invoices lost if the backfill fails');
    expect(text).toContain('risk: Downtime; mitigation: run it at night');
    expect(text).toContain('and 1 more');
    expect(text).toContain('Create: src/billing/new-client.ts');
    expect(text).toContain('Modify: src/billing.ts');
    expect(await card.locator('li[data-step-id="step_1"] .step-files').textContent()).toBe('Files: db/schema.sql');
    expect(await card.locator('li[data-step-id="step_1"] .step-verify code').textContent()).toBe('psql -c "\\dt"');
    expect(await card.locator('li[data-step-id="step_2"] .step-verify code').textContent()).toBe('npm test -- billing');
    expect(await facts.locator('dt:text-is("Complexity") + dd').textContent()).toBe('large');
    // Cut to a glance, and said so, with the way to the whole plan.
    expect(text).not.toContain(TAIL);
    expect(text).not.toContain('The fifth risk');
    expect(await card.locator('[data-plan-mode="cut"]').textContent()).toBe(
      'Some of it is cut short here. All of “Migrate billing”, with its 1 alternative considered and 1 test to write, on its page.',
    );
    // Agent text is text: the markup in the approach is shown, not run.
    expect(text).toContain('<img src=x onerror=');
    expect(await images(page)).toBe(0);
    expect(await seriousA11yFindings(page)).toEqual([]);

    await page.setViewportSize({ width: 375, height: 812 });
    expect(await horizontalOverflow(page)).toBe(0);
    await page.setViewportSize({ width: 1280, height: 860 });

    await card.getByRole('link', { name: 'All of “Migrate billing”' }).click();
    const full = page.locator('.page dl.plan-mode-full');
    await poll(() => full.textContent()).toContain(TAIL);
    const whole = (await full.textContent()) ?? '';
    for (const part of [
      'Move billing to the new API',
      'Dual write for a month',
      'The fifth risk, shown on the page only',
      'src/billing/new-client.ts',
      'backfill keeps every invoice',
    ])
      expect(whole).toContain(part);
    expect(await full.locator('dt:text-is("Estimated complexity") + dd').textContent()).toBe('large');
    const stepNote = page.locator('.page li.step[data-step-id="step_1"] .step-mode');
    expect(await stepNote.textContent()).toBe('Files: db/schema.sqlVerify: psql -c "\\dt"');
    expect(await images(page)).toBe(0);
    expect(await seriousA11yFindings(page)).toEqual([]);
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await horizontalOverflow(page)).toBe(0);
    await page.setViewportSize({ width: 1280, height: 860 });

    await page.locator('.page li.step[data-step-id="step_1"] a.desc').click();
    const stepFacts = page.locator('.page[data-step-id="step_1"] dl.facts');
    await poll(() => stepFacts.locator('dt:text-is("Verification") + dd').textContent()).toBe('psql -c "\\dt"');
    expect(await stepFacts.locator('dt:text-is("Files") + dd').textContent()).toBe('db/schema.sql');
    expect(await seriousA11yFindings(page)).toEqual([]);
    expect(await page.title()).not.toContain('pwned');
    expect(errors).toEqual([]);
  });

  it('says an approval or rejection in words for the person, naming the plan by its title, not the agent’s instructions', async () => {
    const { url } = await dashboardNode(cleanups);
    const { page, errors } = await openDashboard(suite.browser, cleanups, url);
    const planner = await dashboardAgent(cleanups, url, 'planner');
    await planner.plan_enter({ goal: 'Refactor auth' });
    const refactor = await planner.plan_exit({
      plan: { summary: 'Refactor the auth module', approach: 'split it', steps: [{ id: 1, description: 'Split' }] },
    });
    const notice = page.locator('#notice');
    await page.locator(`#approval--${refactor.plan_id}--approve`).click();
    // Read once written (it goes after 8 s): the server's words for the agent used to stand here.
    await poll(() => notice.textContent()).not.toBe('');
    expect(await notice.textContent()).toMatch(/^Approved "Refactor auth"; its agent may start on it\. \(.+\)$/);
    expect(await notice.textContent()).not.toContain(refactor.plan_id);

    const other = await dashboardAgent(cleanups, url, 'other');
    await other.plan_enter({ goal: 'Drop the cache' });
    const drop = await other.plan_exit({
      plan: { summary: 'No cache', approach: 'delete it', steps: [{ id: 1, description: 'Delete' }] },
    });
    await page.locator(`#approval--${drop.plan_id}--reason`).fill('too risky');
    await page.locator(`#approval--${drop.plan_id}--reject`).click();
    await poll(() => notice.textContent()).toMatch(/^Rejected "Drop the cache"/);
    expect(await notice.textContent()).toMatch(/^Rejected "Drop the cache" with the reason: too risky\. \(.+\)$/);

    // The agents' own answers still tell them what to do next.
    const third = await dashboardAgent(cleanups, url, 'third');
    await third.plan_enter({ goal: 'Rotate keys' });
    const rotate = await third.plan_exit({
      plan: { summary: 'Rotate', approach: 'one by one', steps: [{ id: 1, description: 'Rotate' }] },
    });
    const carol = await dashboardAgent(cleanups, url, 'carol', 'user');
    expect((await carol.plan_approve({ plan_id: rotate.plan_id })).message).toContain('call plan_step_complete');
    expect(errors).toEqual([]);
  });
});
