import { createServer } from '@planhub/server';
import { Redis } from 'ioredis';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { startRedisProcess } from '../helpers/redis-process.ts';
import { browserSuite } from './chromium.ts';
import { dashboardAgent, openDashboard } from './dashboard-node.ts';

/** A node on its own redis-server (never 6379), for faults of the store under a page that stays connected. */
const redisNode = async (cleanups: (() => Promise<unknown> | void)[]) => {
  const redis = await startRedisProcess();
  cleanups.push(() => redis.dispose());
  const server = createServer({ port: 0, logLevel: 'silent', redisUrl: redis.url, redisPrefix: 'pill' });
  const { url } = await server.listen();
  cleanups.push(() => server.close());
  return { redis, url };
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
});
