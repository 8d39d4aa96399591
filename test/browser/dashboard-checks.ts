import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
/**
 * Where the views' screenshots go: test/artifacts/ (ignored by git) on every run, so a test run never rewrites
 * tracked files; docs/screenshots/ when PLANHUB_SCREENSHOTS=docs, to refresh the README's pictures.
 */
export const SCREENSHOTS = new URL(
  process.env.PLANHUB_SCREENSHOTS === 'docs' ? '../../docs/screenshots/' : '../artifacts/screenshots/',
  import.meta.url,
).pathname;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Rules reported whatever their impact: axe calls a broken skip link, content outside any landmark and two landmarks
 * of one name "moderate", and so the skip link that led only to the overview's section went unseen on every other
 * view, and two agents' plans of one title were two landmarks a screen reader could not tell apart.
 */
const ALWAYS_REPORTED: ReadonlySet<string> = new Set(['skip-link', 'region', 'landmark-unique']);

/**
 * axe-core's findings of impact serious or critical on the page as it is, and any of ALWAYS_REPORTED. The script is evaluated through the
 * DevTools protocol, so the page's CSP (which allows no inline script) stays as it is in production.
 */
export const seriousA11yFindings = async (page: Page): Promise<string[]> => {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (o: unknown) => Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run({ resultTypes: ['violations'] })).violations;
  });
  return (violations as AxeViolation[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical' || ALWAYS_REPORTED.has(v.id))
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
};

/** How far the page scrolls sideways: 0 when it fits its viewport. */
export const horizontalOverflow = (page: Page): Promise<number> =>
  page.evaluate(() => {
    const el = document.scrollingElement!;
    return el.scrollWidth - el.clientWidth;
  });

/** A screenshot of the view (<SCREENSHOTS>/<name>-<width>.png). */
export const docScreenshot = async (page: Page, name: string): Promise<void> => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  await page.screenshot({ path: `${SCREENSHOTS}${name}-${width}.png`, fullPage: true });
};
