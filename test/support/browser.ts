import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Screenshots for a person to look at (git-ignored). */
export const ARTIFACTS_DIR = resolve(import.meta.dirname, '../artifacts');

/** The Chromium the set-up installed (Debian's), or CHROMIUM_PATH; null when there is none. */
export function chromiumPath(): string | null {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const bin of ['chromium', 'chromium-browser']) {
    try {
      return execFileSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' }).trim() || null;
    } catch {
      // not on the PATH
    }
  }
  return null;
}

let shared: Promise<Browser> | null = null;

/**
 * One headless Chromium for the run, or a skip with the reason printed (never silent). Under CI a
 * missing browser fails: the set-up step installs one there.
 */
export async function browserOrSkip(ctx: Mocha.Context): Promise<Browser> {
  const path = chromiumPath();
  if (!path) {
    if (process.env.CI)
      throw new Error('No Chromium for the browser tests (npm test installs Debian’s chromium).');
    console.log('      browser tests skipped: no Chromium (install `chromium` or set CHROMIUM_PATH)');
    ctx.skip();
  }
  shared ??= chromium.launch({ executablePath: path!, headless: true, args: ['--no-sandbox'] });
  return shared;
}

export async function closeBrowser() {
  if (shared) await (await shared).close();
  shared = null;
}

/**
 * A page that records what a test must never see: console errors, uncaught page errors and failed
 * requests (4xx/5xx answers or network failures).
 */
export async function watchedPage(browser: Browser, opts: { width?: number; height?: number } = {}) {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 900 },
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  return { page, problems, close: () => context.close() };
}

/** Writes a full-page screenshot to test/artifacts/<name>.png. */
export async function screenshot(page: Page, name: string) {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = resolve(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
