import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { browserSuite, watchPageErrors } from './chromium.ts';
import { AUTH_PLAN } from '../integration/plan-mode-support.ts';
import { dashboardAgent, dashboardNode } from './dashboard-node.ts';

/**
 * The page's socket through a relay that can hold back what would tell the page of someone else's decision: the
 * events the node pushes (socket.io frames `42["event",…`) and the answers to the page's own reads (`43<id>[…`, an
 * overview re-read that an earlier event asked for can be answered after the other decision). Only the answers to
 * the page's decisions pass: the page keeps showing a plan as waiting after someone else decided it, as a page does
 * in the moment two people decide at once.
 */
const openWithHeldEvents = async (page: Page, url: string) => {
  let holding = false;
  const held: (() => void)[] = [];
  const decisionCalls = new Set<string>();
  const tellsNews = (frame: string) => {
    if (frame.startsWith('42')) return true;
    const answer = /^43(\d+)\[/.exec(frame);
    return answer !== null && !decisionCalls.has(answer[1]!);
  };
  await page.routeWebSocket(/\/socket\.io\//, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((message) => {
      const decision = /^42(\d+)\["call",\{"tool":"plan_(?:approve|reject)"/.exec(String(message));
      if (decision) decisionCalls.add(decision[1]!);
      server.send(message);
    });
    server.onMessage((message) => {
      const deliver = () => ws.send(message);
      if (holding && tellsNews(String(message))) held.push(deliver);
      else deliver();
    });
  });
  await page.goto(`${url}/dashboard?workspace=ws&agent=alice&role=user`);
  await page.locator('#connection.live').waitFor();
  return {
    hold: () => void (holding = true),
    release: () => {
      holding = false;
      for (const deliver of held.splice(0)) deliver();
    },
  };
};

/** Every text written to the page's alert (#notice), in order: each write is announced by screen readers. */
const alertsWritten = async (page: Page) => {
  const written: string[] = [];
  await page.exposeFunction('noticeWritten', (text: string) => written.push(text));
  await page.evaluate(() => {
    const notice = document.getElementById('notice')!;
    const report = (window as unknown as { noticeWritten: (t: string) => void }).noticeWritten;
    new MutationObserver(() => report(notice.textContent ?? '')).observe(notice, {
      childList: true,
      characterData: true,
      subtree: true,
    });
  });
  return written;
};

/** Two people deciding one plan at once: the server records one decision; the other must hear that theirs was not. */
describe('a decision that loses the race to another', () => {
  const suite = browserSuite();
  const { cleanups } = suite;
  // A step that cannot act fails on its own within the polls' patience, naming itself, not as the test's timeout.
  const newPage = async () => {
    const page = await suite.browser.newPage();
    cleanups.push(() => page.close());
    page.setDefaultTimeout(15_000);
    return page;
  };

  for (const carolApproves of [false, true])
    it(`says the reader's approval was not recorded, and that carol ${carolApproves ? 'approved' : 'rejected'} it first`, async () => {
      const node = await dashboardNode(cleanups);
      const page = await newPage();
      const errors = watchPageErrors(page);
      const relay = await openWithHeldEvents(page, node.url);
      const planner = await dashboardAgent(cleanups, node.url, 'planner');
      const plan = await planner.createPlan({ title: 'Ship 5.0', steps: ['Canary'] });
      await planner.startPlan({ wait: false });
      const approve = page.locator(`#approval--${plan.plan_id}--approve`);
      await approve.waitFor();

      relay.hold();
      const carol = await dashboardAgent(cleanups, node.url, 'carol', 'user');
      if (carolApproves) await carol.plan_approve({ plan_id: plan.plan_id });
      else await carol.plan_reject({ plan_id: plan.plan_id, reason: 'not today' });
      await approve.click();
      relay.release();

      const notice = page.locator('#notice');
      await poll(() => notice.textContent()).toMatch(
        new RegExp(
          `^Your approval of "Ship 5\\.0" \\(${plan.plan_id}\\) was not recorded: it was already ${carolApproves ? 'approved' : 'rejected'} by carol\\.`,
        ),
      );
      // Still said once the page has caught up with carol's decision, not dropped as moot.
      await poll(() => page.locator(`#approval--${plan.plan_id}--approve`).count()).toBe(0);
      await page.waitForTimeout(300);
      expect(await notice.textContent()).toContain('was not recorded');
      expect(errors).toEqual([]);
    });

  it('keeps a lost approval race told in person-facing words when the plan later waits for a change, and names who won a modification race', async () => {
    const node = await dashboardNode(cleanups);
    const page = await newPage();
    const errors = watchPageErrors(page);
    const relay = await openWithHeldEvents(page, node.url);
    const written = await alertsWritten(page);
    const main = await dashboardAgent(cleanups, node.url, 'main');
    await main.plan_enter({ goal: 'Add authentication', scope: 'src/' });
    const { plan_id } = await main.plan_exit({ plan: AUTH_PLAN });
    const carol = await dashboardAgent(cleanups, node.url, 'carol', 'user');
    const approve = page.locator(`#approval--${plan_id}--approve`);
    await approve.waitFor();

    relay.hold();
    await carol.plan_approve({ plan_id });
    await approve.click();
    relay.release();
    const notice = page.locator('#notice');
    const lostApproval = new RegExp(
      `^Your approval of "Add authentication" \\(${plan_id}\\) was not recorded: it was already approved by carol\\.`,
    );
    await poll(() => notice.textContent()).toMatch(lostApproval);
    // The agent asks for a change to a step: a decision of another kind, which the notice is not about.
    await main.plan_modify({
      step_id: 2,
      reason: 'Routes live in two files',
      new_description: 'Apply it to routes.ts and admin.ts',
    });
    const modApprove = page.locator(`#modification--${plan_id}--approve`);
    await modApprove.waitFor();
    await page.waitForTimeout(300);
    expect(await notice.textContent()).toMatch(lostApproval);
    // The server's words for agents were never written, not even for a frame before the outcome.
    expect(written.filter((t) => t.includes('FAILED_PRECONDITION'))).toEqual([]);

    relay.hold();
    await carol.plan_reject({ plan_id, modification: true, reason: 'keep it' });
    await modApprove.click();
    relay.release();
    await poll(() => notice.textContent()).toMatch(
      new RegExp(
        `^Your approval of the change to "Add authentication" \\(${plan_id}\\) was not recorded: it was already rejected by carol\\.`,
      ),
    );
    expect(written.filter((t) => t.includes('FAILED_PRECONDITION'))).toEqual([]);
    // Read, it can be put away.
    await page.locator('#notice-dismiss').click();
    await poll(() => notice.textContent()).toBe('');
    expect(await page.locator('#notice-dismiss').isHidden()).toBe(true);
    expect(errors).toEqual([]);
  });
});
