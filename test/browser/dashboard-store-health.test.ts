import { createServer } from '@planhub/server';
import { Redis } from 'ioredis';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { startRedisProcess } from '../helpers/redis-process.ts';
import { browserSuite } from './chromium.ts';
import { dashboardAgent, openDashboard } from './dashboard-node.ts';

/** A node on its own redis-server (never 6379), for faults of the store under a page that stays connected. */
const redisNode = async (cleanups: (() => Promise<unknown> | void)[], args: readonly string[] = []) => {
  const redis = await startRedisProcess({ args });
  cleanups.push(() => redis.dispose());
  let server = createServer({ port: 0, logLevel: 'silent', redisUrl: redis.url, redisPrefix: 'pill' });
  const { url } = await server.listen();
  cleanups.push(() => server.close());
  /** The node stopped and started again on the same port and Redis, as an operator does after a loss. */
  const restart = async () => {
    await server.close();
    server = createServer({
      port: Number(new URL(url).port),
      logLevel: 'silent',
      redisUrl: redis.url,
      redisPrefix: 'pill',
    });
    await server.listen();
  };
  return { redis, url, restart };
};

const chrome = async (page: Page) => ({
  pill: await page.locator('#connection').textContent(),
  title: await page.title(),
  icon: await page.locator('link[rel="icon"]').getAttribute('data-state'),
});

/**
 * The socket stays up while the node cannot reach its store, or after the store lost its data; the page used to say
 * "live" all along, and after a loss retried its catch-up every 5 s for nothing.
 */
describe('dashboard while the node’s store is out or lost its data', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('says the store is unreachable while Redis hangs, and live again once it answers', async () => {
    const { redis, url } = await redisNode(cleanups);
    const { page } = await openDashboard(suite.browser, cleanups, url);
    redis.signal('SIGSTOP');
    cleanups.push(() => redis.signal('SIGCONT'));
    await poll(() => chrome(page)).toEqual({
      pill: 'store unreachable',
      title: 'Store unreachable · PlanHub · ws',
      icon: 'store-unreachable',
    });
    expect(await page.locator('#stale').isVisible()).toBe(true);
    expect(await page.locator('#stale').textContent()).toContain('cannot reach its store');
    redis.signal('SIGCONT');
    await poll(() => chrome(page)).toEqual({ pill: 'live', title: 'PlanHub · ws', icon: 'quiet' });
    expect(await page.locator('#stale').isHidden()).toBe(true);
  });

  it('after a wipe: says "data lost" for good, clears the plans, cuts the feed and stops retrying', async () => {
    const { redis, url } = await redisNode(cleanups);
    const { page } = await openDashboard(suite.browser, cleanups, url);
    const planner = await dashboardAgent(cleanups, url, 'planner');
    const { plan_id } = await planner.createPlan({ title: 'Gone soon', steps: ['one'] });
    await poll(() => page.locator(`.plan[data-plan-id="${plan_id}"]`).count()).toBe(1);
    await poll(() => page.locator(`.feed a[href*="${plan_id}"]`).count()).toBeGreaterThan(0);

    const raw = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    raw.on('error', () => undefined);
    cleanups.push(() => raw.disconnect());
    await raw.flushall();
    await poll(() => chrome(page)).toEqual({
      pill: 'data lost',
      title: 'Data lost · PlanHub · ws',
      icon: 'store-lost',
    });
    const stale = page.locator('#stale');
    expect(await stale.textContent()).toContain('lost its data');
    expect(await stale.textContent()).not.toContain('catching up');
    // The plans shown no longer exist: not offered, and the feed's record of them is cut and unlinked.
    await poll(() => page.locator(`.plan[data-plan-id="${plan_id}"]`).count()).toBe(0);
    expect(await page.locator('#feed-loss').count()).toBe(1);
    expect(await page.locator(`.feed a[href*="${plan_id}"]`).count()).toBe(0);

    // Retrying does not help: no catch-up is tried again (the node's reconnects included).
    const sent: string[] = [];
    page.on('websocket', (ws) => ws.on('framesent', ({ payload }) => sent.push(String(payload))));
    await page.waitForTimeout(7_000);
    expect(sent.filter((f) => f.includes('"getWorkspace"'))).toEqual([]);
    expect(await page.locator('#connection').textContent()).toBe('data lost');
    await page.evaluate((id) => (window.location.hash = `#/ws/ws/plan/${id}`), plan_id);
    await poll(() => page.locator('.page-body').textContent()).toContain('no longer exists');
  });

  it('says the store is full while Redis is out of memory, and what a decision then means for a person', async () => {
    const { redis, url } = await redisNode(cleanups, ['--maxmemory-policy', 'noeviction']);
    const { page } = await openDashboard(suite.browser, cleanups, url);
    const planner = await dashboardAgent(cleanups, url, 'planner');
    const { plan_id } = await planner.createPlan({ title: 'Decide when full', steps: ['one'] });
    await planner.startPlan({ wait: false });
    const approve = page.locator(`#approval--${plan_id}--approve`);
    await approve.waitFor();
    const admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    admin.on('error', () => undefined);
    cleanups.push(() => admin.disconnect());
    await admin.config('SET', 'maxmemory', '1');
    cleanups.push(() => admin.config('SET', 'maxmemory', '0'));
    await poll(() => chrome(page)).toEqual({
      pill: 'store full',
      title: '(1) Store full · PlanHub · ws',
      icon: 'store-full',
    });
    expect(await page.locator('#stale').textContent()).toContain('nothing new can be recorded');
    await approve.click();
    const notice = page.locator('#notice');
    await poll(() => notice.textContent()).toContain('store is full');
    // The server's words are for whoever codes an agent: a person cannot "retry with the same request_id".
    expect(await notice.textContent()).not.toMatch(/RESOURCE_EXHAUSTED|request_id/);
    expect(await notice.textContent()).toContain('still waits for a decision');
    await admin.config('SET', 'maxmemory', '0');
    await poll(() => chrome(page)).toEqual({ pill: 'live', title: '(1) PlanHub · ws', icon: 'waiting' });
  });

  it('after a wipe: offers no older events or workspaces to read, names plans by title, and says when the server is back', async () => {
    const { redis, url, restart } = await redisNode(cleanups);
    const { page } = await openDashboard(suite.browser, cleanups, url);
    const planner = await dashboardAgent(cleanups, url, 'planner');
    const { plan_id } = await planner.createPlan({ title: 'Named after the loss', steps: ['one'] });
    await page.evaluate((id) => (window.location.hash = `#/ws/ws/plan/${id}`), plan_id);
    await page.locator('#page-h').waitFor();
    await page.evaluate(() => (window.location.hash = '#/ws/ws/events'));
    await page.locator('#feed-older').waitFor();

    const raw = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    raw.on('error', () => undefined);
    cleanups.push(() => raw.disconnect());
    await raw.flushall();
    await poll(() => page.locator('#connection').textContent()).toBe('data lost');
    // The log older events would be read from is gone: nothing offers to read it, nothing prints DATA_LOSS.
    await poll(() => page.locator('#feed-older').count()).toBe(0);
    const sent: string[] = [];
    page.on('websocket', (ws) => ws.on('framesent', ({ payload }) => sent.push(String(payload))));
    await page.evaluate(() => (window.location.hash = '#/workspaces'));
    await poll(() => page.locator('#workspaces').textContent()).toContain('store lost its data');
    expect(await page.locator('#workspaces').textContent()).not.toContain('createPlan');
    expect(await page.locator('#notice').textContent()).toBe('');
    expect(sent.filter((f) => f.includes('"listWorkspaces"'))).toEqual([]);
    // The plan is no longer in the overview: the tab names it by the title its page read.
    await page.evaluate((id) => (window.location.hash = `#/ws/ws/plan/${id}`), plan_id);
    await poll(() => page.title()).toBe('Data lost · Plan “Named after the loss” · PlanHub · ws');

    // Still checked after the loss: once the node answers ready again, a reload helps, and the banner says so.
    const stale = page.locator('#stale');
    expect(await stale.textContent()).not.toContain('server is back');
    await restart();
    await poll(() => stale.textContent()).toContain('The server is back');
    expect(await stale.textContent()).toContain('reload this page');
  });
});
