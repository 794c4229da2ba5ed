import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  FAST_ASSETS,
  FAST_WINDOWS,
  FIXTURES,
  currentWindowStart,
  fastMarketSlug,
  fastWinner,
  startPolymarketEmulator,
  type PolymarketEmulator,
} from './polymarket/index.js';

// Self-tests of the Polymarket emulator: the wire quirks adapters rely on (reference
// shared/reference/polymarket.md §2, §3, §7, §10) and the admin control plane.

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

// A fixed clock (mid-window for both 5m and 15m markets) that the tests move by hand.
const T0 = Date.UTC(2026, 10, 23, 20, 7, 30);
let clockMs = T0;

let emu: PolymarketEmulator;

async function call(
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; body: Json; text: string }> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Json;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text };
}
const get = (url: string) => call('GET', url);
const post = (url: string, body: unknown = {}) => call('POST', url, body);

async function gammaMarket(slug: string): Promise<Json> {
  const res = await get(`${emu.gammaUrl}/markets/slug/${slug}`);
  assert.equal(res.status, 200, res.text);
  return res.body;
}
const tokensOf = (m: Json): [string, string] => JSON.parse(m.clobTokenIds);

describe('Polymarket emulator', () => {
  before(async () => {
    emu = await startPolymarketEmulator({ now: () => clockMs });
  });
  after(async () => {
    await emu.close();
  });
  beforeEach(async () => {
    clockMs = T0;
    assert.equal((await post(`${emu.adminUrl}/reset`)).status, 200);
  });

  describe('Gamma', () => {
    it('when a market is fetched, then its wire types match the real API (JSON-string fields, numeric ticks)', async () => {
      const m = await gammaMarket(FIXTURES.binaryMarket);
      assert.match(m.id, /^\d+$/);
      assert.match(m.conditionId, /^0x[0-9a-f]{64}$/);
      for (const key of ['outcomes', 'outcomePrices', 'clobTokenIds', 'umaResolutionStatuses']) {
        assert.equal(typeof m[key], 'string', key);
      }
      assert.deepEqual(JSON.parse(m.outcomes), ['Yes', 'No']);
      const prices: string[] = JSON.parse(m.outcomePrices);
      assert.ok(prices.every((p) => typeof p === 'string'));
      const tokens = tokensOf(m);
      assert.ok(tokens.every((t) => /^\d{70,78}$/.test(t)));
      assert.equal(typeof m.volume, 'string');
      assert.equal(typeof m.volumeNum, 'number');
      assert.equal(typeof m.volume24hr, 'number');
      assert.equal(typeof m.liquidity, 'string');
      assert.equal(typeof m.liquidityNum, 'number');
      assert.equal(m.orderPriceMinTickSize, 0.01);
      assert.equal(m.orderMinSize, 5);
      assert.equal(m.version, 'v1');
      assert.equal(typeof m.bestBid, 'number');
      assert.equal(typeof m.bestAsk, 'number');
      assert.ok(Date.parse(m.endDate) > T0);
      assert.equal(m.endDateIso, m.endDate.slice(0, 10));
      assert.deepEqual(
        m.events.map((e: Json) => e.slug),
        [FIXTURES.binaryMarket],
      );
    });

    it('when the catalogue is listed, then it has at least 60 static markets over 20 events across categories', async () => {
      const catalogue: Json[] = (await get(`${emu.adminUrl}/catalogue`)).body;
      const fixed = catalogue.filter((e) => !/-updown-/.test(e.event_slug));
      assert.ok(fixed.length >= 20, `${fixed.length} events`);
      assert.ok(fixed.flatMap((e) => e.markets).length >= 60);
      const tags = new Set(
        ((await get(`${emu.gammaUrl}/events?limit=500`)).body as Json[]).flatMap((e) =>
          e.tags.map((t: Json) => t.slug),
        ),
      );
      for (const t of ['politics', 'sports', 'crypto', 'economy', 'culture']) assert.ok(tags.has(t), t);
    });

    it('when /markets is called without `closed`, then closed markets are left out (implicit closed=false)', async () => {
      const bySlug = `${emu.gammaUrl}/markets?slug=${FIXTURES.resolvedMarket}`;
      assert.deepEqual((await get(bySlug)).body, []);
      const closed = (await get(`${bySlug}&closed=true`)).body;
      assert.equal(closed.length, 1);
      assert.equal(closed[0].closed, true);
      const all: Json[] = (await get(`${emu.gammaUrl}/markets?limit=500`)).body;
      assert.ok(all.length > 0 && all.every((m) => m.closed === false));
      // The by-slug path returns closed markets.
      assert.equal((await gammaMarket(FIXTURES.resolvedMarket)).closed, true);
    });

    it('when filters are repeated keys, then every value is matched', async () => {
      const a = await gammaMarket(FIXTURES.binaryMarket);
      const b = await gammaMarket(FIXTURES.tick0001Market);
      const slugs = (await get(`${emu.gammaUrl}/markets?slug=${a.slug}&slug=${b.slug}`)).body;
      assert.deepEqual(slugs.map((m: Json) => m.slug).sort(), [a.slug, b.slug].sort());
      const ids = (await get(`${emu.gammaUrl}/markets?id=${a.id}&id=${b.id}`)).body;
      assert.equal(ids.length, 2);
      const cids = (
        await get(`${emu.gammaUrl}/markets?condition_ids=${a.conditionId}&condition_ids=${b.conditionId}`)
      ).body;
      assert.equal(cids.length, 2);
      const toks = (
        await get(`${emu.gammaUrl}/markets?clob_token_ids=${tokensOf(a)[1]}&clob_token_ids=${tokensOf(b)[0]}`)
      ).body;
      assert.equal(toks.length, 2);
    });

    it('when order/limit/offset are given, then the list is sorted and paged', async () => {
      const top: Json[] = (await get(`${emu.gammaUrl}/markets?order=volume24hr&ascending=false&limit=5`))
        .body;
      assert.equal(top.length, 5);
      for (let i = 1; i < top.length; i++) assert.ok(top[i - 1].volume24hr >= top[i].volume24hr);
      const next: Json[] = (
        await get(`${emu.gammaUrl}/markets?order=volume24hr&ascending=false&limit=5&offset=5`)
      ).body;
      assert.ok(next[0].volume24hr <= top[4].volume24hr);
      const bad = await get(`${emu.gammaUrl}/markets?order=nonsense`);
      assert.equal(bad.status, 422);
    });

    it('when an unknown or malformed id/slug is requested, then Gamma answers 404/422 with its error body', async () => {
      assert.deepEqual(await get(`${emu.gammaUrl}/markets/999999999`).then((r) => [r.status, r.body]), [
        404,
        { type: 'not found error', error: 'id not found' },
      ]);
      assert.deepEqual(
        await get(`${emu.gammaUrl}/markets/slug/no-such-market`).then((r) => [r.status, r.body]),
        [404, { type: 'not found error', error: 'slug not found' }],
      );
      assert.equal((await get(`${emu.gammaUrl}/events/slug/no-such-event`)).status, 404);
      assert.equal((await get(`${emu.gammaUrl}/events/1`)).status, 404);
      assert.deepEqual(await get(`${emu.gammaUrl}/markets/0xabc`).then((r) => [r.status, r.body]), [
        422,
        { type: 'validation error', error: 'id is invalid' },
      ]);
      assert.equal((await get(`${emu.gammaUrl}/markets?limit=abc`)).status, 422);
      const unknownPath = await get(`${emu.gammaUrl}/nope`);
      assert.equal(unknownPath.status, 404);
    });

    it('when the 11-outcome event is fetched, then it is neg-risk with 11 Yes/No candidate markets', async () => {
      const res = await get(`${emu.gammaUrl}/events/slug/${FIXTURES.elevenOutcomeEvent}`);
      assert.equal(res.status, 200);
      const e = res.body;
      assert.equal(e.markets.length, 11);
      assert.equal(e.negRisk, true);
      assert.match(e.negRiskMarketID, /^0x[0-9a-f]{64}$/);
      for (const m of e.markets) {
        assert.equal(m.negRisk, true);
        assert.equal(m.negRiskMarketID, e.negRiskMarketID);
        assert.deepEqual(JSON.parse(m.outcomes), ['Yes', 'No']);
        assert.ok(m.groupItemTitle);
        assert.notEqual(m.slug, e.slug);
      }
      assert.equal(new Set(e.markets.map((m: Json) => m.conditionId)).size, 11);
      const tags = (await get(`${emu.gammaUrl}/events/${e.id}/tags`)).body;
      assert.ok(tags.some((t: Json) => t.slug === 'politics'));
      assert.deepEqual((await get(`${emu.gammaUrl}/markets/${e.markets[0].id}/tags`)).body, tags);
    });

    it('when a single-market event is fetched, then its slug equals its market slug', async () => {
      const e = (await get(`${emu.gammaUrl}/events/slug/${FIXTURES.binaryMarket}`)).body;
      assert.equal(e.markets.length, 1);
      assert.equal(e.markets[0].slug, e.slug);
      const byId = (await get(`${emu.gammaUrl}/events/${e.id}`)).body;
      assert.equal(byId.slug, e.slug);
    });

    it('when the fixtures are read, then the special markets have the documented states', async () => {
      const fifty = await gammaMarket(FIXTURES.fiftyFiftyMarket);
      assert.deepEqual(JSON.parse(fifty.outcomePrices), ['0.5', '0.5']);
      assert.equal(fifty.umaResolutionStatus, 'resolved');
      const resolved = await gammaMarket(FIXTURES.resolvedMarket);
      assert.deepEqual(JSON.parse(resolved.outcomePrices), ['1', '0']);
      assert.equal(resolved.closed, true);
      assert.equal(resolved.umaResolutionStatus, 'resolved');
      const paused = await gammaMarket(FIXTURES.notAcceptingOrdersMarket);
      assert.equal(paused.acceptingOrders, false);
      assert.equal(paused.closed, false);
      assert.equal((await gammaMarket(FIXTURES.tick0001Market)).orderPriceMinTickSize, 0.001);
      const multi = (await get(`${emu.gammaUrl}/events/slug/${FIXTURES.multiOutcomeEvent}`)).body;
      assert.ok(multi.markets.length >= 3 && multi.markets.length <= 8);
    });

    it('when World Cup events are read (the catalogue’s, and one made at the admin door), then they carry Gamma’s World Cup tag with its label and slug', async () => {
      const worldCup = { label: 'World Cup', slug: 'world-cup' };
      const tagsOf = (tags: Json[]) => tags.map((t) => ({ label: t.label, slug: t.slug }));
      const seeded = (await get(`${emu.gammaUrl}/events/slug/${FIXTURES.worldCupMarket}`)).body;
      assert.deepEqual(tagsOf(seeded.tags), [
        { label: 'Sports', slug: 'sports' },
        { label: 'Soccer', slug: 'soccer' },
        worldCup,
      ]);
      assert.equal(seeded.markets[0].closed, false);

      const made = await post(`${emu.adminUrl}/events`, {
        title: 'World Cup match: will the favourite win?',
        tags: ['sports', 'soccer', 'worldCup'],
      });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      const event = (await get(`${emu.gammaUrl}/events/${made.body.event_id}`)).body;
      assert.deepEqual(tagsOf(event.tags).at(-1), worldCup);
      assert.ok(typeof event.tags.at(-1).id === 'string');
      const byMarket = (await get(`${emu.gammaUrl}/markets/${made.body.markets[0].id}/tags`)).body;
      assert.deepEqual(tagsOf(byMarket), tagsOf(event.tags));
    });
  });

  describe('CLOB public', () => {
    it('when /ok, /time and /version are called, then they answer like the real service', async () => {
      assert.equal((await get(`${emu.clobUrl}/ok`)).body, 'OK');
      assert.equal((await get(`${emu.clobUrl}/time`)).body, Math.floor(T0 / 1000));
      assert.deepEqual((await get(`${emu.clobUrl}/version`)).body, { version: 2 });
    });

    it('when a book is fetched, then bids ascend, asks descend, values are strings and the hash verifies', async () => {
      const m = await gammaMarket(FIXTURES.binaryMarket);
      const [yes, no] = tokensOf(m);
      const book = (await get(`${emu.clobUrl}/book?token_id=${yes}`)).body;
      assert.equal(book.market, m.conditionId);
      assert.equal(book.asset_id, yes);
      assert.match(book.timestamp, /^\d{13}$/);
      assert.equal(book.tick_size, '0.01');
      assert.equal(book.min_order_size, '5');
      assert.equal(book.neg_risk, false);
      assert.equal(typeof book.last_trade_price, 'string');
      assert.ok(book.bids.length >= 3 && book.asks.length >= 3);
      const bids = book.bids.map((l: Json) => Number(l.price));
      const asks = book.asks.map((l: Json) => Number(l.price));
      assert.deepEqual(
        bids,
        [...bids].sort((a, b) => a - b),
      );
      assert.deepEqual(
        asks,
        [...asks].sort((a, b) => b - a),
      );
      assert.ok(bids.at(-1) < asks.at(-1));
      for (const l of [...book.bids, ...book.asks]) {
        assert.equal(typeof l.price, 'string');
        assert.equal(typeof l.size, 'string');
        assert.ok(
          Math.abs(Number(l.price) * 100 - Math.round(Number(l.price) * 100)) < 1e-9,
          'on the tick grid',
        );
      }
      const sha1 = createHash('sha1')
        .update(JSON.stringify({ ...book, hash: '' }))
        .digest('hex');
      assert.equal(book.hash, sha1);
      // The NO book mirrors the YES book.
      const noBook = (await get(`${emu.clobUrl}/book?token_id=${no}`)).body;
      assert.equal(Number(noBook.bids.at(-1).price), Number((1 - asks.at(-1)).toFixed(6)));
      assert.equal(Number(noBook.asks.at(-1).price), Number((1 - bids.at(-1)).toFixed(6)));
      const books = (await post(`${emu.clobUrl}/books`, [{ token_id: yes }, { token_id: no }])).body;
      assert.deepEqual(
        books.map((b: Json) => b.asset_id),
        [yes, no],
      );
    });

    it('when /price is asked, then side=BUY gives the best bid and side=SELL the best ask', async () => {
      const [yes] = tokensOf(await gammaMarket(FIXTURES.binaryMarket));
      const book = (await get(`${emu.clobUrl}/book?token_id=${yes}`)).body;
      const buy = (await get(`${emu.clobUrl}/price?token_id=${yes}&side=BUY`)).body;
      const sell = (await get(`${emu.clobUrl}/price?token_id=${yes}&side=SELL`)).body;
      assert.equal(buy.price, book.bids.at(-1).price);
      assert.equal(sell.price, book.asks.at(-1).price);
      const mid = (await get(`${emu.clobUrl}/midpoint?token_id=${yes}`)).body;
      assert.equal(Number(mid.mid), Number(((Number(buy.price) + Number(sell.price)) / 2).toFixed(6)));
      const spread = (await get(`${emu.clobUrl}/spread?token_id=${yes}`)).body;
      assert.equal(Number(spread.spread), Number((Number(sell.price) - Number(buy.price)).toFixed(6)));
      const prices = (
        await post(`${emu.clobUrl}/prices`, [
          { token_id: yes, side: 'BUY' },
          { token_id: yes, side: 'SELL' },
        ])
      ).body;
      assert.deepEqual(prices, { [yes]: { BUY: buy.price, SELL: sell.price } });
      assert.deepEqual((await post(`${emu.clobUrl}/midpoints`, [{ token_id: yes }])).body, {
        [yes]: mid.mid,
      });
      assert.deepEqual((await get(`${emu.clobUrl}/tick-size?token_id=${yes}`)).body, {
        minimum_tick_size: 0.01,
      });
      assert.deepEqual((await get(`${emu.clobUrl}/neg-risk?token_id=${yes}`)).body, { neg_risk: false });
      assert.deepEqual((await get(`${emu.clobUrl}/fee-rate?token_id=${yes}`)).body, { base_fee: 0 });
      const last = (await get(`${emu.clobUrl}/last-trade-price?token_id=${yes}`)).body;
      assert.equal(last.price, '0.23');
      assert.ok(['BUY', 'SELL'].includes(last.side));
    });

    it('when a token is invalid, unknown or closed, then the exact CLOB error texts come back', async () => {
      assert.deepEqual(await get(`${emu.clobUrl}/book`).then((r) => [r.status, r.body]), [
        400,
        { error: 'Invalid token id' },
      ]);
      assert.deepEqual(await get(`${emu.clobUrl}/book?token_id=abc`).then((r) => [r.status, r.body]), [
        400,
        { error: 'Invalid token id' },
      ]);
      const noBook = [404, { error: 'No orderbook exists for the requested token id' }];
      assert.deepEqual(
        await get(`${emu.clobUrl}/book?token_id=123456789`).then((r) => [r.status, r.body]),
        noBook,
      );
      const [resolvedYes] = tokensOf(await gammaMarket(FIXTURES.resolvedMarket));
      assert.deepEqual(
        await get(`${emu.clobUrl}/book?token_id=${resolvedYes}`).then((r) => [r.status, r.body]),
        noBook,
      );
      assert.deepEqual(
        await get(`${emu.clobUrl}/tick-size?token_id=123456789`).then((r) => [r.status, r.body]),
        [404, { error: 'market not found' }],
      );
      assert.equal((await post(`${emu.clobUrl}/books`, { token_id: '1' })).body.error, 'Invalid payload');
      assert.equal((await get(`${emu.clobUrl}/price?token_id=123&side=UP`)).status, 400);
      assert.equal((await get(`${emu.clobUrl}/not-a-route`)).status, 404);
    });

    it('when CLOB market objects are fetched, then they are snake_case with tokens and lookups by token', async () => {
      const g = await gammaMarket(FIXTURES.multiOutcomeMarket);
      const m = (await get(`${emu.clobUrl}/markets/${g.conditionId}`)).body;
      assert.equal(m.condition_id, g.conditionId);
      assert.equal(m.neg_risk, true);
      assert.equal(m.minimum_tick_size, g.orderPriceMinTickSize);
      assert.equal(m.is_50_50_outcome, false);
      assert.deepEqual(
        m.tokens.map((t: Json) => [t.token_id, t.outcome, t.winner]),
        [
          [tokensOf(g)[0], 'Yes', false],
          [tokensOf(g)[1], 'No', false],
        ],
      );
      const info = (await get(`${emu.clobUrl}/clob-markets/${g.conditionId}`)).body;
      assert.equal(info.c, g.conditionId);
      assert.equal(info.nr, true);
      assert.equal(info.t[0].t, tokensOf(g)[0]);
      const byToken = (await get(`${emu.clobUrl}/markets-by-token/${tokensOf(g)[1]}`)).body;
      assert.equal(byToken.condition_id, g.conditionId);
      assert.equal((await get(`${emu.clobUrl}/markets/0x${'0'.repeat(64)}`)).status, 404);
    });

    it('when price history is asked, then it is {t,p} numbers ending at the current price, by interval or range', async () => {
      const [yes, no] = tokensOf(await gammaMarket(FIXTURES.binaryMarket));
      const day = (await get(`${emu.clobUrl}/prices-history?market=${yes}&interval=1d&fidelity=60`)).body
        .history;
      assert.ok(day.length >= 23 && day.length <= 25, String(day.length));
      for (const pt of day) {
        assert.equal(typeof pt.t, 'number');
        assert.equal(typeof pt.p, 'number');
      }
      assert.equal(day.at(-1).p, 0.23);
      const endTs = Math.floor(T0 / 1000);
      const range = (
        await get(
          `${emu.clobUrl}/prices-history?market=${no}&startTs=${endTs - 6 * 3600}&endTs=${endTs}&fidelity=30`,
        )
      ).body.history;
      assert.ok(range.length >= 12 && range.length <= 14, String(range.length));
      assert.equal(range.at(-1).p, 0.77);
      assert.equal((await get(`${emu.clobUrl}/prices-history?market=${yes}`)).status, 400);
    });
  });

  describe('Data API', () => {
    const user = '0x' + 'ab'.repeat(20);

    it('when `user` is missing or malformed, then the Data API answers 400', async () => {
      assert.equal((await get(`${emu.dataUrl}/positions`)).status, 400);
      assert.equal((await get(`${emu.dataUrl}/positions?user=bob`)).status, 400);
      assert.deepEqual((await get(`${emu.dataUrl}/positions?user=${user}`)).body, []);
    });

    it('when holdings are seeded, then positions carry camelCase numbers, hide dust and value them', async () => {
      const m = await gammaMarket(FIXTURES.binaryMarket);
      const [yes, no] = tokensOf(m);
      assert.equal(
        (await post(`${emu.adminUrl}/positions`, { user, token_id: yes, size: 100, avgPrice: 0.2 })).status,
        200,
      );
      await post(`${emu.adminUrl}/positions`, { user, token_id: no, size: 0.5, avgPrice: 0.7 });
      const rows: Json[] = (await get(`${emu.dataUrl}/positions?user=${user}`)).body;
      assert.equal(rows.length, 1, 'sizeThreshold defaults to 1');
      const p = rows[0];
      assert.equal(p.asset, yes);
      assert.equal(p.conditionId, m.conditionId);
      assert.equal(p.size, 100);
      assert.equal(p.avgPrice, 0.2);
      assert.equal(p.curPrice, 0.23);
      assert.equal(p.currentValue, 23);
      assert.equal(p.redeemable, false);
      assert.equal(p.outcome, 'Yes');
      assert.equal(p.oppositeAsset, no);
      assert.equal((await get(`${emu.dataUrl}/positions?user=${user}&sizeThreshold=0`)).body.length, 2);
      const value = (await get(`${emu.dataUrl}/value?user=${user}`)).body;
      assert.deepEqual(value, [{ user, value: 23.385 }]);
    });
  });

  describe('admin', () => {
    it('when a price is set, then book, midpoint, last trade, Gamma snapshot and history all move', async () => {
      const m = await gammaMarket(FIXTURES.binaryMarket);
      const [yes] = tokensOf(m);
      const before = (await get(`${emu.clobUrl}/book?token_id=${yes}`)).body;
      clockMs += 60_000;
      assert.equal((await post(`${emu.adminUrl}/markets/${m.conditionId}/price`, { yes: 0.63 })).status, 200);
      const after = await gammaMarket(FIXTURES.binaryMarket);
      assert.deepEqual(JSON.parse(after.outcomePrices), ['0.63', '0.37']);
      assert.equal(after.lastTradePrice, 0.63);
      assert.ok(after.bestBid < 0.63 && after.bestAsk > 0.63);
      assert.equal((await get(`${emu.clobUrl}/midpoint?token_id=${yes}`)).body.mid, '0.63');
      assert.equal((await get(`${emu.clobUrl}/last-trade-price?token_id=${yes}`)).body.price, '0.63');
      const book = (await get(`${emu.clobUrl}/book?token_id=${yes}`)).body;
      assert.notEqual(book.hash, before.hash);
      assert.equal(book.timestamp, String(clockMs));
      const history = (await get(`${emu.clobUrl}/prices-history?market=${yes}&interval=1h&fidelity=1`)).body
        .history;
      assert.equal(history.at(-1).p, 0.63);
      assert.equal((await post(`${emu.adminUrl}/markets/${m.conditionId}/price`, { yes: 1.2 })).status, 400);
      assert.equal(
        (await post(`${emu.adminUrl}/markets/0x${'1'.repeat(64)}/price`, { yes: 0.5 })).status,
        404,
      );
    });

    it('when a market is resolved, then Gamma, CLOB and Data API all show the outcome', async () => {
      const user = '0x' + 'cd'.repeat(20);
      const m = await gammaMarket(FIXTURES.multiOutcomeMarket);
      const [yes] = tokensOf(m);
      await post(`${emu.adminUrl}/positions`, { user, token_id: yes, size: 10, avgPrice: 0.3 });
      assert.equal(
        (await post(`${emu.adminUrl}/markets/${m.conditionId}/resolve`, { outcome: 'yes' })).status,
        200,
      );
      const g = await gammaMarket(FIXTURES.multiOutcomeMarket);
      assert.equal(g.closed, true);
      assert.equal(g.acceptingOrders, false);
      assert.equal(g.umaResolutionStatus, 'resolved');
      assert.deepEqual(JSON.parse(g.outcomePrices), ['1', '0']);
      const c = (await get(`${emu.clobUrl}/markets/${m.conditionId}`)).body;
      assert.deepEqual(
        c.tokens.map((t: Json) => [t.winner, t.price]),
        [
          [true, 1],
          [false, 0],
        ],
      );
      const [p] = (await get(`${emu.dataUrl}/positions?user=${user}&redeemable=true`)).body;
      assert.equal(p.redeemable, true);
      assert.equal(p.curPrice, 1);

      const other = await gammaMarket(FIXTURES.binaryMarket);
      await post(`${emu.adminUrl}/markets/${other.conditionId}/resolve`, { outcome: '50-50' });
      assert.deepEqual(JSON.parse((await gammaMarket(FIXTURES.binaryMarket)).outcomePrices), ['0.5', '0.5']);
      assert.equal((await get(`${emu.clobUrl}/markets/${other.conditionId}`)).body.is_50_50_outcome, true);
    });

    it('when a market is closed without resolving, then it stops trading but has no resolution', async () => {
      const m = await gammaMarket(FIXTURES.tick0001Market);
      await post(`${emu.adminUrl}/markets/${m.conditionId}/close`);
      const g = await gammaMarket(FIXTURES.tick0001Market);
      assert.equal(g.closed, true);
      assert.equal(g.acceptingOrders, false);
      assert.equal(g.umaResolutionStatus, undefined);
    });

    it('when faults are armed, then the next matching requests fail that way and then recover', async () => {
      const [yes] = tokensOf(await gammaMarket(FIXTURES.binaryMarket));
      await post(`${emu.adminUrl}/faults`, { mode: '500', count: 1, path_prefix: '/clob' });
      assert.equal((await get(`${emu.gammaUrl}/markets?limit=1`)).status, 200, 'other prefixes unaffected');
      assert.equal((await get(`${emu.clobUrl}/book?token_id=${yes}`)).status, 500);
      assert.equal((await get(`${emu.clobUrl}/book?token_id=${yes}`)).status, 200);

      await post(`${emu.adminUrl}/faults`, { mode: '429', count: 2 });
      assert.equal((await get(`${emu.gammaUrl}/markets?limit=1`)).status, 429);
      assert.equal((await get(`${emu.dataUrl}/value?user=0x${'1'.repeat(40)}`)).status, 429);
      assert.equal((await get(`${emu.gammaUrl}/markets?limit=1`)).status, 200);

      await post(`${emu.adminUrl}/faults`, { mode: 'malformed', path_prefix: '/gamma' });
      assert.deepEqual((await get(`${emu.gammaUrl}/markets?limit=1`)).body, { unexpected: true });
      await call('DELETE', `${emu.adminUrl}/faults`);
      assert.ok(Array.isArray((await get(`${emu.gammaUrl}/markets?limit=1`)).body));

      await post(`${emu.adminUrl}/faults`, { mode: 'timeout', count: 1 });
      await assert.rejects(fetch(`${emu.clobUrl}/ok`, { signal: AbortSignal.timeout(200) }));
      assert.equal((await get(`${emu.clobUrl}/ok`)).status, 200);
    });

    it('when the request log is read, then it lists non-admin requests only, until cleared', async () => {
      await call('DELETE', `${emu.adminUrl}/requests`);
      assert.deepEqual((await get(`${emu.adminUrl}/requests`)).body, []);
      await get(`${emu.gammaUrl}/markets?slug=a&slug=b`);
      const log: Json[] = (await get(`${emu.adminUrl}/requests`)).body;
      assert.equal(log.length, 1);
      assert.deepEqual(log[0], {
        method: 'GET',
        path: '/gamma/markets',
        query: { slug: ['a', 'b'] },
        at: T0,
      });
    });

    it('when an event is created, then it is listed and tradeable like the fixtures', async () => {
      const created = (
        await post(`${emu.adminUrl}/events`, {
          title: 'Who wins the test cup?',
          outcomes: ['Red', 'Blue', 'Green'],
        })
      ).body;
      assert.equal(created.neg_risk, true);
      assert.equal(created.markets.length, 3);
      const e = (await get(`${emu.gammaUrl}/events/slug/${created.event_slug}`)).body;
      assert.equal(e.id, created.event_id);
      assert.deepEqual(
        e.markets.map((m: Json) => m.groupItemTitle),
        ['Red', 'Blue', 'Green'],
      );
      const book = await get(`${emu.clobUrl}/book?token_id=${created.markets[0].token_ids[0]}`);
      assert.equal(book.status, 200);
      const binary = (await post(`${emu.adminUrl}/events`, { title: 'Will the test pass?' })).body;
      assert.equal(binary.neg_risk, false);
      assert.equal((await gammaMarket(binary.event_slug)).slug, binary.event_slug);
    });

    it('when reset, then prices, positions, created events, faults, clock and log are back to the start', async () => {
      const m = await gammaMarket(FIXTURES.binaryMarket);
      await post(`${emu.adminUrl}/markets/${m.conditionId}/price`, { yes: 0.9 });
      const created = (await post(`${emu.adminUrl}/events`, { title: 'Ephemeral' })).body;
      await post(`${emu.adminUrl}/positions`, {
        user: '0x' + 'ef'.repeat(20),
        token_id: tokensOf(m)[0],
        size: 5,
        avgPrice: 0.1,
      });
      await post(`${emu.adminUrl}/faults`, { mode: '500', path_prefix: '/data' });
      await post(`${emu.adminUrl}/clock`, { advance_ms: 3_600_000 });
      await post(`${emu.adminUrl}/reset`);
      assert.deepEqual(JSON.parse((await gammaMarket(FIXTURES.binaryMarket)).outcomePrices), [
        '0.23',
        '0.77',
      ]);
      assert.equal((await get(`${emu.gammaUrl}/events/slug/${created.event_slug}`)).status, 404);
      assert.deepEqual((await get(`${emu.dataUrl}/positions?user=0x${'ef'.repeat(20)}`)).body, []);
      assert.deepEqual((await get(`${emu.adminUrl}/clock`)).body, { now_ms: T0, offset_ms: 0 });
      const log: Json[] = (await get(`${emu.adminUrl}/requests`)).body;
      assert.equal(log.length, 3, 'only the requests made after the reset');
    });
  });

  describe('fast markets', () => {
    it('when the clock is at some instant, then the current and next two windows exist per asset and length', async () => {
      for (const asset of FAST_ASSETS) {
        for (const w of FAST_WINDOWS) {
          const start = currentWindowStart(T0, w.seconds);
          for (let k = 0; k < 3; k++) {
            const slug = fastMarketSlug(asset.key, w.key, start + k * w.seconds);
            const m = await gammaMarket(slug);
            assert.deepEqual(JSON.parse(m.outcomes), ['Up', 'Down']);
            assert.equal(Date.parse(m.startDate), (start + k * w.seconds) * 1000);
            assert.equal(Date.parse(m.endDate), (start + (k + 1) * w.seconds) * 1000);
            assert.equal(m.closed, false);
          }
          assert.equal(
            (
              await get(
                `${emu.gammaUrl}/markets/slug/${fastMarketSlug(asset.key, w.key, start + 3 * w.seconds)}`,
              )
            ).status,
            404,
          );
        }
      }
      const start = currentWindowStart(T0, 900);
      const e = (await get(`${emu.gammaUrl}/events/slug/btc-updown-15m-${start}`)).body;
      assert.equal(e.title, 'Bitcoin Up or Down - November 23, 3:00PM-3:15PM ET');
      const tagSlugs = e.tags.map((t: Json) => t.slug);
      for (const t of ['crypto', 'up-or-down', '15M']) assert.ok(tagSlugs.includes(t), t);
    });

    it('when the clock passes a window end, then it closes, auto-resolves 30 s later and new windows roll in', async () => {
      const start = currentWindowStart(T0, 900);
      const slug = fastMarketSlug('btc', '15m', start);
      const endMs = (start + 900) * 1000;
      clockMs = endMs + 1_000;
      let m = await gammaMarket(slug);
      assert.equal(m.closed, true);
      assert.equal(m.acceptingOrders, false);
      assert.equal(m.umaResolutionStatus, undefined);
      assert.equal(
        (await get(`${emu.gammaUrl}/markets?slug=${slug}`)).body.length,
        0,
        'hidden by implicit closed=false',
      );

      await post(`${emu.adminUrl}/clock`, { advance_ms: 30_000 });
      m = await gammaMarket(slug);
      assert.equal(m.umaResolutionStatus, 'resolved');
      const winnerUp = fastWinner(slug) === 'yes';
      assert.deepEqual(JSON.parse(m.outcomePrices), winnerUp ? ['1', '0'] : ['0', '1']);
      // Still queryable by condition id on the CLOB.
      const c = (await get(`${emu.clobUrl}/markets/${m.conditionId}`)).body;
      assert.equal(c.tokens[winnerUp ? 0 : 1].winner, true);
      // The window three ahead of the original is now listed.
      assert.equal((await gammaMarket(fastMarketSlug('btc', '15m', start + 3 * 900))).closed, false);
    });
  });
});
