import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { testContext } from '../support/context.js';
import { browserOrSkip, closeBrowser, screenshot, watchedPage } from '../support/browser.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { importedMarket } from '../support/polymarket-traders.js';

/** Every page must stay under this many bytes on the wire before the chart's data (issue 17). */
const PAGE_BUDGET_BYTES = 200_000;

/** What the market page's chart says it drew: one entry per uPlot series (x excluded). */
interface DrawnSeries {
  label: string;
  points: number;
}

/**
 * The bytes the browser received for the page and everything it loaded (transfer sizes from the
 * Resource Timing API), leaving out the URLs `except` matches. Evaluated as text: no DOM types here.
 */
async function transferredBytes(page: Page, except: RegExp | null = null): Promise<number> {
  return page.evaluate<number>(`(() => {
    const skip = ${except ? except.toString() : 'null'};
    return [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
      .filter((e) => !skip || !skip.test(e.name))
      .reduce((sum, e) => sum + (e.transferSize || e.encodedBodySize), 0);
  })()`);
}

/** How far the page is wider than the viewport (0 or less: no horizontal scrolling). */
const horizontalOverflow = (page: Page) =>
  page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');

/**
 * Runs `use` on a fresh watched page (skipping without a browser) and then fails on anything the
 * page logged as an error or any request that failed or answered 4xx/5xx.
 */
async function onWatchedPage(
  ctx: Mocha.Context,
  viewport: { width?: number; height?: number },
  use: (page: Page) => Promise<void>,
) {
  const { page, problems, close } = await watchedPage(await browserOrSkip(ctx), viewport);
  try {
    await use(page);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
}

describe('public web dashboard in a browser #browser', function () {
  this.timeout(90_000);
  let server: Server;
  let base: string;
  let trader: RegisteredAgent;
  let simMarket: { _id: string; question: string };
  let imported: { marketId: string };
  const marker = `dash${Date.now().toString(36)}`;

  before(async () => {
    server = testContext().app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    trader = await registerAgent({ name: `${marker}-trader`, description: 'Buys what the crowd sells.' });
    simMarket = await makeMarket({ question: `Will the ${marker} dashboard ship?`, p0: 0.4 });
    await makeMarket({ question: `Will ${marker} be forgotten?`, p0: 0.7 });
    for (const side of ['yes', 'no', 'yes'])
      assert.equal((await trade(trader, { market_id: simMarket._id, side, amount: 25 })).body.success, true);
    imported = await importedMarket(trader, [0.62, 0.38]);
    const onImported = await trade(trader, { market_id: imported.marketId, side: 'yes', amount: 10 });
    assert.equal(onImported.body.success, true, JSON.stringify(onImported.body));
  });
  after(async () => {
    await closeBrowser();
    await new Promise((r) => server.close(r));
  });

  it('when the markets page is opened, then it lists markets with prices, filters by search and by source without JavaScript, and stays under 200 kB', async function () {
    await onWatchedPage(this, {}, async (page) => {
      await page.goto(`${base}/`, { waitUntil: 'networkidle' });
      assert.equal(await page.locator('main h1').innerText(), 'Markets');
      assert.ok((await page.locator('table tbody tr').count()) > 0, 'the catalogue has rows');
      assert.ok((await transferredBytes(page)) < PAGE_BUDGET_BYTES, 'page weight');
      await screenshot(page, 'dashboard-markets');

      // The filters are a GET form: typing and submitting needs no script.
      await page.getByLabel('Search').fill(marker);
      await Promise.all([page.waitForURL(/q=/), page.getByRole('button', { name: 'Filter' }).click()]);
      const questions = await page.locator('table tbody tr th a').allInnerTexts();
      assert.deepEqual(questions.sort(), [
        `Will ${marker} be forgotten?`,
        `Will the ${marker} dashboard ship?`,
      ]);
      const row = page.locator('tr', { hasText: `Will the ${marker} dashboard ship?` });
      assert.match(await row.innerText(), /sim/i);

      await page.getByLabel('Search').fill('');
      await page.getByLabel('Source').selectOption('polymarket');
      await Promise.all([
        page.waitForURL(/source=polymarket/),
        page.getByRole('button', { name: 'Filter' }).click(),
      ]);
      const sources = await page.locator('table tbody tr td[data-column="source"]').allInnerTexts();
      assert.ok(sources.length > 0, 'the imported market is listed');
      assert.deepEqual([...new Set(sources.map((s) => s.trim().toLowerCase()))], ['polymarket']);
      const externalPrices = await page
        .locator('table tbody tr td[data-column="external-price"]')
        .allInnerTexts();
      assert.ok(
        externalPrices.every((p) => /\d/.test(p)),
        `imported markets show an external price: ${externalPrices}`,
      );
      await screenshot(page, 'dashboard-markets-polymarket');
    });
  });

  it('when an imported market is opened, then its chart draws the sim price, the external price and the trades from the public history route', async function () {
    await onWatchedPage(this, {}, async (page) => {
      await page.goto(`${base}/markets/${imported.marketId}`, { waitUntil: 'networkidle' });
      const chart = page.locator('#price-chart[data-state="drawn"]');
      await chart.waitFor();
      assert.equal(await chart.locator('canvas').count(), 1, 'uPlot drew on a canvas');
      const series = JSON.parse((await chart.getAttribute('data-series'))!) as DrawnSeries[];
      assert.deepEqual(
        series.map((s) => s.label),
        ['Sim price', 'External price', 'Trades'],
      );
      const history = (await api().get(`/api/markets/${imported.marketId}/history`).expect(200)).body;
      assert.equal(series[2]!.points, history.trades.length);
      assert.equal(series[2]!.points, 1, 'the one trade is marked');
      assert.ok(series[0]!.points >= 2 && series[1]!.points >= 2, JSON.stringify(series));
      const legend = await page.locator('.u-legend').innerText();
      assert.match(legend, /Sim price/);
      assert.match(legend, /External price/);
      assert.ok(
        (await transferredBytes(page, /\/api\/markets\/[^/]+\/history/)) < PAGE_BUDGET_BYTES,
        'page weight before the chart data',
      );
      await screenshot(page, 'dashboard-market-imported');
    });
  });

  it('when a sim market is opened at phone width, then the chart has the sim price and its three trades (no external series) and the page fits the screen', async function () {
    await onWatchedPage(this, { width: 390, height: 844 }, async (page) => {
      await page.goto(`${base}/markets/${simMarket._id}`, { waitUntil: 'networkidle' });
      const chart = page.locator('#price-chart[data-state="drawn"]');
      await chart.waitFor();
      const series = JSON.parse((await chart.getAttribute('data-series'))!) as DrawnSeries[];
      assert.deepEqual(
        series.map((s) => [s.label, s.label === 'Trades' ? s.points : 'any']),
        [
          ['Sim price', 'any'],
          ['Trades', 3],
        ],
      );
      assert.equal(await page.locator('main h1').innerText(), simMarket.question);
      const overflow = await horizontalOverflow(page);
      assert.ok(overflow <= 0, `no horizontal scrolling at phone width (overflow ${overflow}px)`);
      await screenshot(page, 'dashboard-market-sim-phone');
    });
  });

  it('when the markets page is opened at phone width, then nothing overflows the screen', async function () {
    await onWatchedPage(this, { width: 390, height: 844 }, async (page) => {
      await page.goto(`${base}/?q=${marker}`, { waitUntil: 'networkidle' });
      const overflow = await horizontalOverflow(page);
      assert.ok(overflow <= 0, `no horizontal scrolling at phone width (overflow ${overflow}px)`);
      await screenshot(page, 'dashboard-markets-phone');
    });
  });

  it('when the leaderboard is opened, then it shows the same ranking as GET /api/leaderboard/sdk-agents', async function () {
    await onWatchedPage(this, {}, async (page) => {
      await page.goto(`${base}/leaderboard`, { waitUntil: 'networkidle' });
      assert.equal(await page.locator('main h1').innerText(), 'Leaderboard');
      const board = (await api().get('/api/leaderboard/sdk-agents?limit=100').expect(200)).body;
      const names = await page.locator('table tbody tr th').allInnerTexts();
      assert.deepEqual(
        names.map((n) => n.trim()),
        board.entries.map((e: { name: string }) => e.name),
      );
      if (board.entries.some((e: { name: string }) => e.name === `${marker}-trader`))
        assert.match(await page.locator('tr', { hasText: `${marker}-trader` }).innerText(), /\b4\b/);
      assert.ok((await transferredBytes(page)) < PAGE_BUDGET_BYTES, 'page weight');
      await screenshot(page, 'dashboard-leaderboard');
    });
  });

  it('when the claim page is opened, then it shows the agent, its sim record and how to claim it with the owner token', async function () {
    await onWatchedPage(this, {}, async (page) => {
      await page.goto(`${base}/claim/${trader.claim_code}`, { waitUntil: 'networkidle' });
      assert.equal(await page.locator('main h1').innerText(), `Claim ${marker}-trader`);
      const text = await page.locator('main').innerText();
      assert.match(text, /Buys what the crowd sells\./);
      const record = await page.locator('[aria-labelledby="sim-record"]').innerText();
      assert.match(record, /Trades\s+4/);
      assert.match(record, /Balance/);
      assert.ok(text.includes(trader.claim_code), 'the code is shown');
      assert.match(text, /POST \S*\/api\/sdk\/agents\/claim\n/);
      assert.match(text, /Authorization: Bearer/);
      assert.ok((await transferredBytes(page)) < PAGE_BUDGET_BYTES, 'page weight');
      await screenshot(page, 'dashboard-claim');
    });
  });

  it('when a dashboard page is answered, then it carries a CSP that allows only its own scripts', async () => {
    for (const path of ['/', `/markets/${simMarket._id}`, '/leaderboard', `/claim/${trader.claim_code}`]) {
      const res = await api().get(path).expect(200);
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /script-src 'self'(;|$)/, `${path}: ${csp}`);
      assert.doesNotMatch(res.text, /<script(?![^>]*\bsrc=)/, `${path}: no inline script`);
    }
  });
  it('when a keyboard user opens a page, then the first Tab reaches "Skip to content", which leads to the main landmark', async function () {
    await onWatchedPage(this, {}, async (page) => {
      await page.goto(`${base}/leaderboard`, { waitUntil: 'networkidle' });
      await page.keyboard.press('Tab');
      const skip = page.locator(':focus');
      assert.equal(await skip.innerText(), 'Skip to content');
      assert.equal(await skip.getAttribute('href'), '#content');
      assert.equal(await page.locator('main#content').count(), 1);
      assert.equal(
        await page.locator('nav[aria-label="Main"] a[aria-current="page"]').innerText(),
        'Leaderboard',
      );
    });
  });

  it('when a market that does not exist is opened, then the dashboard answers a 404 page with the fix, not JSON', async () => {
    const res = await api().get('/markets/00000000-0000-4000-8000-000000000000').expect(404);
    assert.match(String(res.headers['content-type']), /text\/html/);
    assert.match(res.text, /<h1>Market not found<\/h1>/);
    assert.match(res.text, /GET \/api\/sdk\/markets/);
  });
});
