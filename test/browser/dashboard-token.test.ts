import { mintToken } from '@planhub/server';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { browserSuite, watchPageErrors } from './chromium.ts';

const SECRET = 'dashboard-token-secret-0123456789';

/** A secret-mode dashboard: the token from its link, kept for the tab across reloads and never put in a query. */
describe('the dashboard’s token in Chromium (secret mode)', () => {
  const suite = browserSuite();
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness('memory', { secret: SECRET });
  });
  afterAll(async () => {
    await h.close();
  });

  const newPage = async () => {
    const page = await suite.browser.newPage();
    suite.cleanups.push(() => page.close());
    return { page, errors: watchPageErrors(page) };
  };
  const pill = (page: Page) => page.locator('#connection');
  const stored = (page: Page) => page.evaluate(() => sessionStorage.getItem('planhub.dashboard.token'));

  it('takes #token= off the address bar and connects again after a reload', async () => {
    const token = await mintToken(SECRET, { workspace: 'ws', agent_id: 'alice', role: 'user' }, '5m');
    const { page, errors } = await newPage();
    await page.goto(`${h.url}/dashboard#token=${token}`);
    await page.locator('#connection.live').waitFor();
    expect(page.url()).toBe(`${h.url}/dashboard`);
    await page.reload();
    await page.locator('#connection.live').waitFor();
    expect(await page.locator('.who').textContent()).toBe('alice · user');
    // A route after the reload is kept: the token no longer sits in the hash the router reads.
    await page.evaluate(() => (window.location.hash = '#/ws/ws/graph'));
    await poll(() => page.locator('#app').getAttribute('data-view')).toBe('graph');
    expect(errors).toEqual([]);
  });

  it('tells a person to open the link again when the token is refused, and forgets it', async () => {
    // Minted an hour ago for a minute: expired well past the clock skew verification allows.
    const anHourAgo = Math.floor(Date.now() / 1000) - 3600;
    const expired = await mintToken(SECRET, { workspace: 'ws', agent_id: 'alice', role: 'user' }, '1m', anHourAgo);
    const { page } = await newPage();
    await page.goto(`${h.url}/dashboard#token=${expired}`);
    await poll(() => pill(page).getAttribute('class')).toBe('pill refused');
    const text = await pill(page).textContent();
    expect(text).toContain('Open the dashboard link you were given again');
    expect(text).not.toContain('--role agent');
    expect(await stored(page)).toBeNull();
    await page.reload();
    await poll(() => pill(page).textContent()).toContain('this server needs a sign-in token');
  });

  it('does not take ?token= (a query reaches proxies’ logs) but removes it from the address bar', async () => {
    const token = await mintToken(SECRET, { workspace: 'ws', agent_id: 'alice', role: 'user' }, '5m');
    const { page } = await newPage();
    await page.goto(`${h.url}/dashboard?token=${token}#/ws/ws/graph`);
    await poll(() => pill(page).getAttribute('class')).toBe('pill refused');
    expect(page.url()).toBe(`${h.url}/dashboard#/ws/ws/graph`);
    expect(await stored(page)).toBeNull();
  });
});
