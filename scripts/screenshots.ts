// `npm run screenshots -- --base-url <url> [--operator-token <t>]`: opens a running service (`npm start`)
// in headless Chromium and writes screenshots of its pages under test/artifacts/screenshots/: the
// markets page (desktop and phone width), a market page with its chart, the leaderboard, a claim
// page (of an agent registered for it), and, when the service has the operator console, its
// queues and schedules pages after signing in through the console's login form. The operator token
// is --operator-token, else OPERATOR_TOKEN or the one `npm start` generated into DATA_DIR.
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Env } from '../shared/infra/config/env.js';
import { resolveOperatorToken } from '../shared/infra/operator-token.js';
import { chromiumPath } from '../test/support/browser.js';
import { api, arg, baseUrl, DemoFailure, expect, heading, runDemo, type Json } from './demo-support.js';

const OUT_DIR = resolve(import.meta.dirname, '../test/artifacts/screenshots');

/** The service's operator token, never a new one: a token that did not exist cannot be the service's. */
function operatorToken(env: Env): string | null {
  const given = arg('operator-token');
  if (given) return given;
  if (env.OPERATOR_TOKEN || existsSync(join(env.DATA_DIR, 'operator-token')))
    return resolveOperatorToken(env).token;
  return null;
}

/** Opens `path` and writes `<name>.png`; a page that logs an error or loses a request stops the run. */
async function shoot(
  browser: Browser,
  path: string,
  name: string,
  opts: { width?: number; ready?: (page: Page) => Promise<unknown>; page?: Page } = {},
) {
  const page =
    opts.page ??
    (await (await browser.newContext({ viewport: { width: opts.width ?? 1280, height: 900 } })).newPage());
  const problems: string[] = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('requestfailed', (r) => problems.push(`${r.url()}: ${r.failure()?.errorText}`));
  const res = await page.goto(`${baseUrl}${path}`, { waitUntil: 'networkidle' });
  expect(res?.ok(), `GET ${path} answered HTTP ${res?.status()}`);
  await opts.ready?.(page);
  const file = join(OUT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(
    `  ${path.padEnd(40)} → ${file}${problems.length ? `  (page problems: ${problems.join('; ')})` : ''}`,
  );
  return page;
}

/** A market worth charting: the one traded most recently, else the first active one. */
async function chartedMarket(): Promise<Json> {
  const trending = (await api('GET', '/api/markets?status=trending&limit=1', { quiet: true }))
    .markets as Json[];
  expect(
    trending.length,
    'The service lists no active market: start it with `npm start` (it seeds a catalogue).',
  );
  return trending[0]!;
}

runDemo(async (env) => {
  const executablePath = chromiumPath();
  if (!executablePath)
    throw new DemoFailure(
      'No Chromium: install Debian’s `chromium` (npm test’s set-up does) or set CHROMIUM_PATH.',
    );
  mkdirSync(OUT_DIR, { recursive: true });

  heading('An agent for the claim page, with two trades to mark on the chart');
  const agent = await api('POST', '/api/sdk/agents/register', {
    body: {
      name: `screenshot-agent-${Date.now().toString(36)}`,
      description: 'Registered by npm run screenshots.',
    },
  });
  const market = await chartedMarket();
  for (const side of ['yes', 'no']) {
    // A refusal (cooldown, limits) is an answer too: the chart then marks the trades it has.
    await api('POST', '/api/sdk/trade', {
      auth: String(agent.api_key),
      body: { market_id: market.id, side, amount: 5, reasoning: 'Screenshot of the price chart.' },
    });
  }

  heading(`Screenshots of ${baseUrl} → ${OUT_DIR}`);
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
  try {
    await shoot(browser, '/', 'markets');
    await shoot(browser, '/', 'markets-phone', { width: 390 });
    await shoot(browser, `/markets/${market.id}`, 'market-chart', {
      ready: (page) => page.locator('#price-chart[data-state="drawn"]').waitFor({ timeout: 15_000 }),
    });
    await shoot(browser, '/leaderboard', 'leaderboard');
    await shoot(browser, `/claim/${agent.claim_code}`, 'claim');

    const token = operatorToken(env);
    const login = await fetch(`${baseUrl}/admin/login`);
    if (login.status !== 200) {
      console.log('  the service has no operator console (/admin/login): its pages are skipped');
      return;
    }
    if (!token) {
      console.log(
        '  no operator token (--operator-token, OPERATOR_TOKEN or DATA_DIR/operator-token): console skipped',
      );
      return;
    }
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${baseUrl}/admin/login`);
    await page.getByLabel('Your name').fill('screenshots');
    await page.getByLabel('Operator token').fill(token);
    await Promise.all([
      page.waitForURL((url) => !url.pathname.endsWith('/login')),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    await shoot(browser, '/admin/queues', 'admin-queues', { page });
    await shoot(browser, '/admin/schedules', 'admin-schedules', { page });
  } finally {
    await browser.close();
  }
});
