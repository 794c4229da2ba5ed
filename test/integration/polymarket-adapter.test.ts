import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { CONDITION_ID, TOKEN_ID } from '../../shared/domains/venues/external-ids.js';
import { PositionsAnswerSchema } from '../../shared/domains/venues/polymarket/data-api.schemas.js';
import { GammaMarketSchema } from '../../shared/domains/venues/polymarket/gamma.schemas.js';
import {
  mapGammaMarket,
  UNSUPPORTED_PROTOCOL_V2,
} from '../../shared/domains/venues/polymarket/map-market.js';
import { PolymarketAdapter } from '../../shared/domains/venues/polymarket/polymarket-adapter.js';
import type { VenueMarketKey } from '../../shared/domains/venues/venue-adapter.js';
import { VenueHttpError } from '../../shared/infra/http/venue-http-error.js';
import { createVenueMetrics, type VenueMetrics } from '../../shared/infra/http/venue-metrics.js';
import { createLogger } from '../../shared/infra/logger.js';
import {
  FIXTURES,
  startPolymarketEmulator,
  type MarketRecord,
  type PolymarketEmulator,
} from '../emulators/polymarket/index.js';

// The Polymarket adapter against its emulator on loopback: wire shapes → venue types, batching,
// resolution per reference §10, and behaviour when the venue misbehaves. The emulator is this
// file's own (faults and resolutions must not leak into other tests) and is reset before each case.

const log = createLogger('silent', 'test');
const UNKNOWN_CONDITION = `0x${'cd'.repeat(32)}`;
const WALLET = '0x1111111111111111111111111111111111111111';

describe('polymarket adapter #integration', function () {
  let emu: PolymarketEmulator;
  let adapter: PolymarketAdapter;

  const admin = async <T = unknown>(
    method: 'POST' | 'DELETE' | 'GET',
    path: string,
    body?: unknown,
  ): Promise<T> => {
    const res = await fetch(`${emu.adminUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`emulator ${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  };
  const requests = () => admin<{ method: string; path: string }[]>('GET', '/requests');
  const fixture = (slug: string): MarketRecord => {
    const m = emu.state.marketBySlug(slug);
    if (!m) throw new Error(`no fixture ${slug}`);
    return m;
  };
  const keyOf = (m: MarketRecord): VenueMarketKey => ({
    externalId: m.conditionId,
    yesTokenId: m.tokenIds[0],
    noTokenId: m.tokenIds[1],
  });
  const build = (overrides: Partial<ConstructorParameters<typeof PolymarketAdapter>[0]> = {}) =>
    new PolymarketAdapter({
      gammaUrl: emu.gammaUrl,
      clobUrl: emu.clobUrl,
      dataUrl: emu.dataUrl,
      timeoutMs: 2000,
      retries: 1,
      backoffMs: 5,
      breakerFailures: 5,
      breakerCooldownMs: 30_000,
      metrics: createVenueMetrics(new Registry()),
      log,
      ...overrides,
    });

  before(async () => {
    emu = await startPolymarketEmulator({ port: 0 });
  });
  after(async () => {
    await emu?.close();
  });
  beforeEach(async () => {
    await admin('POST', '/reset');
    adapter = build();
  });

  describe('markets and events', () => {
    it('when a binary market is read by slug, then every wire field is mapped with token ids as strings', async () => {
      const rec = fixture(FIXTURES.binaryMarket);
      const m = await adapter.marketBySlug(FIXTURES.binaryMarket);

      assert.ok(m);
      assert.equal(m.venue, 'polymarket');
      assert.match(m.externalId, CONDITION_ID);
      assert.equal(m.externalId, rec.conditionId.toLowerCase());
      assert.equal(typeof m.yesTokenId, 'string');
      assert.match(m.yesTokenId!, TOKEN_ID);
      assert.deepEqual([m.yesTokenId, m.noTokenId], rec.tokenIds);
      assert.deepEqual(m.outcomes, ['Yes', 'No']);
      assert.equal(m.question, rec.question);
      assert.equal(m.yesPrice, rec.price);
      assert.equal(m.tickSize, rec.tick);
      assert.equal(m.minOrderSize, rec.minSize);
      assert.equal(m.volume24h, rec.volume24hr);
      assert.equal(m.volumeTotal, rec.volume);
      assert.equal(m.liquidity, rec.liquidity);
      assert.equal(m.feeRateBps, rec.takerBaseFee);
      assert.ok(m.endDate instanceof Date && m.endDate.getTime() === rec.endMs);
      assert.equal(m.slug, FIXTURES.binaryMarket);
      assert.equal(m.eventSlug, FIXTURES.binaryMarket);
      assert.equal(m.url, `https://polymarket.com/event/${FIXTURES.binaryMarket}`);
      assert.deepEqual(m.tags, ['Economy', 'Business']);
      assert.deepEqual(m.tagSlugs, ['economy', 'business']);
      assert.equal(m.category, 'Economy');
      assert.equal(m.outcomeName, null);
      assert.deepEqual(
        [m.negRisk, m.closed, m.acceptingOrders, m.resolution, m.unsupported],
        [false, false, true, null, null],
      );
      assert.ok(m.bestBid! < m.bestAsk!);
    });

    it('when a neg-risk event is read by slug, then each candidate is a binary market with its outcome name', async () => {
      const e = await adapter.eventBySlug(FIXTURES.multiOutcomeEvent);

      assert.ok(e);
      assert.equal(e.slug, FIXTURES.multiOutcomeEvent);
      assert.equal(e.negRisk, true);
      assert.equal(e.markets.length, 4);
      const names = e.markets.map((m) => m.outcomeName);
      assert.deepEqual(names, ['50+ bps decrease', '25 bps decrease', 'No change', '25+ bps increase']);
      for (const m of e.markets) {
        assert.equal(m.negRisk, true);
        assert.equal(m.eventId, e.id);
        assert.equal(m.eventName, e.title);
        assert.equal(m.url, `https://polymarket.com/event/${e.slug}/${m.slug}`);
        assert.equal(m.category, 'Economy');
        assert.match(m.yesTokenId!, TOKEN_ID);
        assert.equal(m.unsupported, null);
      }
      const candidate = e.markets.find((m) => m.slug === FIXTURES.multiOutcomeMarket);
      assert.equal(candidate?.outcomeName, 'No change');

      const eleven = await adapter.eventBySlug(FIXTURES.elevenOutcomeEvent);
      assert.equal(eleven?.markets.length, 11);
      assert.equal(new Set(eleven?.markets.map((m) => m.externalId)).size, 11);
    });

    it('when a candidate market is read by slug, then it knows its parent event', async () => {
      const m = await adapter.marketBySlug(FIXTURES.multiOutcomeMarket);
      assert.equal(m?.eventSlug, FIXTURES.multiOutcomeEvent);
      assert.equal(m?.outcomeName, 'No change');
      assert.equal(m?.negRisk, true);
    });

    it('when markets have special shapes, then tick, named outcomes and paused trading come through', async () => {
      assert.equal((await adapter.marketBySlug(FIXTURES.tick0001Market))?.tickSize, 0.001);
      assert.deepEqual((await adapter.marketBySlug(FIXTURES.namedOutcomeMarket))?.outcomes, [
        'Lakers',
        'Celtics',
      ]);
      const paused = await adapter.marketBySlug(FIXTURES.notAcceptingOrdersMarket);
      assert.deepEqual([paused?.closed, paused?.acceptingOrders], [false, false]);
    });

    it('when a market resolved yes or 50-50, then the resolution is read per §10', async () => {
      const yes = await adapter.marketBySlug(FIXTURES.resolvedMarket);
      assert.deepEqual([yes?.closed, yes?.acceptingOrders], [true, false]);
      assert.equal(yes?.resolution?.outcome, true);
      assert.equal(yes?.resolution?.payoutYes, 1);
      assert.ok(yes?.resolution?.resolvedAt instanceof Date);

      const void5050 = await adapter.marketBySlug(FIXTURES.fiftyFiftyMarket);
      assert.deepEqual([void5050?.resolution?.outcome, void5050?.resolution?.payoutYes], [null, 0.5]);
    });

    it('when a market is read by condition id, then open and closed markets are both found', async () => {
      const open = fixture(FIXTURES.binaryMarket);
      const closed = fixture(FIXTURES.resolvedMarket);
      assert.equal(
        (await adapter.market({ externalId: open.conditionId.toUpperCase().replace('0X', '0x') }))?.slug,
        open.slug,
      );
      assert.equal((await adapter.market({ externalId: closed.conditionId }))?.slug, closed.slug);
      // Found via the list, whose markets embed their event: the URL is the event page all the same.
      assert.equal(
        (await adapter.market({ externalId: open.conditionId }))?.url,
        `https://polymarket.com/event/${open.slug}`,
      );
    });

    it('when a slug or condition id is unknown, then the answer is null', async () => {
      assert.equal(await adapter.marketBySlug('no-such-market-anywhere'), null);
      assert.equal(await adapter.eventBySlug('no-such-event-anywhere'), null);
      assert.equal(await adapter.market({ externalId: UNKNOWN_CONDITION }), null);
    });

    it('when a slug or id could not exist upstream, then it is null without any request', async () => {
      await admin('DELETE', '/requests');
      assert.equal(await adapter.marketBySlug('../markets/1'), null);
      assert.equal(await adapter.eventBySlug('Robert%27); DROP'), null);
      assert.equal(await adapter.market({ externalId: 'not-a-condition-id' }), null);
      assert.deepEqual(await requests(), []);
    });
  });

  describe('listing importable markets', () => {
    it('when open markets are listed, then they are tradeable, supported and by 24-hour volume', async () => {
      const list = await adapter.listOpen({ limit: 10, minVolume: 0 });
      assert.equal(list.length, 10);
      for (const m of list)
        assert.deepEqual([m.closed, m.acceptingOrders, m.unsupported], [false, true, null]);
      for (let i = 1; i < list.length; i++) assert.ok(list[i - 1]!.volume24h >= list[i]!.volume24h);
      const all = [...emu.state.markets.values()].filter((m) => !m.closed && m.acceptingOrders);
      const top = Math.max(...all.map((m) => m.volume24hr));
      assert.equal(list[0]!.volume24h, top);
    });

    it('when a category, text or volume floor is given, then only matching markets come back', async () => {
      const crypto = await adapter.listOpen({ limit: 50, minVolume: 0, category: 'crypto' });
      assert.ok(crypto.length > 0);
      for (const m of crypto) assert.ok(m.tags.includes('Crypto'), m.slug ?? '');
      const bySlugForm = await adapter.listOpen({ limit: 50, minVolume: 0, category: 'fed-rates' });
      assert.ok(bySlugForm.length > 0 && bySlugForm.every((m) => m.tags.includes('Fed Rates')));

      const bitcoin = await adapter.listOpen({ limit: 50, minVolume: 0, q: 'BITCOIN' });
      assert.ok(bitcoin.some((m) => m.slug === FIXTURES.tick0001Market));
      for (const m of bitcoin)
        assert.match(`${m.question} ${m.eventName} ${m.slug} ${m.eventSlug}`, /bitcoin/i);

      // Each word of q anywhere in the market's texts, in any order ("trump china"): here the last
      // word of a bitcoin market's question before "bitcoin".
      const market = bitcoin.find((m) => !/bitcoin\s*\S*$/i.test(m.question))!;
      const last = market.question.split(/\s+/).at(-1)!;
      const reversed = await adapter.listOpen({ limit: 50, minVolume: 0, q: `${last} bitcoin` });
      assert.ok(
        reversed.some((m) => m.slug === market.slug),
        `${last} bitcoin: ${market.question}`,
      );
      for (const m of reversed) {
        const text = [m.question, m.eventName, m.outcomeName, m.slug, m.eventSlug, ...m.tags].join(' ');
        assert.ok(text.toLowerCase().includes('bitcoin') && text.toLowerCase().includes(last.toLowerCase()));
      }

      const floor = 50_000;
      const rich = await adapter.listOpen({ limit: 100, minVolume: floor });
      assert.ok(rich.every((m) => m.volume24h >= floor));
      assert.deepEqual(await adapter.listOpen({ limit: 10, minVolume: 1e15 }), []);
    });
  });

  describe('quotes', () => {
    it('when quotes are asked for, then YES price is the YES-token midpoint inside the spread', async () => {
      const a = fixture(FIXTURES.binaryMarket);
      const b = fixture(FIXTURES.tick0001Market);
      const quotes = await adapter.quotes([keyOf(a), keyOf(b)]);
      for (const rec of [a, b]) {
        const q = quotes.get(rec.conditionId);
        assert.ok(q, rec.slug);
        assert.ok(q.bestBid! < q.yesPrice && q.yesPrice < q.bestAsk!);
        assert.equal(q.spread, Number((q.bestAsk! - q.bestBid!).toFixed(6)));
        assert.ok(Math.abs(q.yesPrice - rec.price) <= rec.tick);
      }
    });

    it('when the admin moves a price, then the next quote follows it', async () => {
      const rec = fixture(FIXTURES.binaryMarket);
      await admin('POST', `/markets/${rec.conditionId}/price`, { yes: 0.63 });
      const q = (await adapter.quotes([keyOf(rec)])).get(rec.conditionId);
      assert.equal(q?.yesPrice, 0.63);
    });

    it('when a key has no token ids, then they are looked up on Gamma first', async () => {
      const rec = fixture(FIXTURES.binaryMarket);
      const quotes = await adapter.quotes([{ externalId: rec.conditionId }]);
      assert.ok(quotes.get(rec.conditionId));
    });

    it('when a market is unknown or closed, then it is absent from the answer', async () => {
      const open = fixture(FIXTURES.binaryMarket);
      const closed = fixture(FIXTURES.resolvedMarket);
      const quotes = await adapter.quotes([keyOf(open), keyOf(closed), { externalId: UNKNOWN_CONDITION }]);
      assert.deepEqual([...quotes.keys()], [open.conditionId]);
    });

    it('when there are more markets than one batch holds, then they go in several calls and all are answered', async () => {
      await admin('POST', '/events', {
        title: 'Which of 30 will win?',
        outcomes: Array.from({ length: 30 }, (_, i) => `Candidate ${i + 1}`),
      });
      const open = [...emu.state.markets.values()].filter((m) => !m.closed && m.enableOrderBook);
      assert.ok(open.length > 100, `only ${open.length} open markets`);
      await admin('DELETE', '/requests');

      const quotes = await adapter.quotes(open.map(keyOf));

      assert.equal(quotes.size, open.length);
      const calls = (await requests()).filter((r) => r.path === '/clob/books');
      assert.equal(calls.length, Math.ceil(open.length / 100));
    });
  });

  describe('statuses', () => {
    it('when statuses are asked for, then open, resolved and void markets are told apart and unknown ones left out', async () => {
      const open = fixture(FIXTURES.binaryMarket);
      const yes = fixture(FIXTURES.resolvedMarket);
      const half = fixture(FIXTURES.fiftyFiftyMarket);
      const paused = fixture(FIXTURES.notAcceptingOrdersMarket);
      const statuses = await adapter.statuses([
        keyOf(open),
        keyOf(yes),
        keyOf(half),
        keyOf(paused),
        { externalId: UNKNOWN_CONDITION },
        { externalId: 'garbage' },
      ]);
      assert.deepEqual(statuses.get(open.conditionId), {
        closed: false,
        acceptingOrders: true,
        resolution: null,
      });
      assert.deepEqual(statuses.get(paused.conditionId), {
        closed: false,
        acceptingOrders: false,
        resolution: null,
      });
      assert.deepEqual(
        [
          statuses.get(yes.conditionId)?.resolution?.outcome,
          statuses.get(yes.conditionId)?.resolution?.payoutYes,
        ],
        [true, 1],
      );
      assert.deepEqual(
        [
          statuses.get(half.conditionId)?.resolution?.outcome,
          statuses.get(half.conditionId)?.resolution?.payoutYes,
        ],
        [null, 0.5],
      );
      assert.equal(statuses.size, 4);
    });

    it('when the admin resolves markets yes, no and 50-50, then statuses show each outcome', async () => {
      const e = await adapter.eventBySlug(FIXTURES.multiOutcomeEvent);
      const [a, b, c] = e!.markets;
      await admin('POST', `/markets/${a!.externalId}/resolve`, { outcome: 'yes' });
      await admin('POST', `/markets/${b!.externalId}/resolve`, { outcome: 'no' });
      await admin('POST', `/markets/${c!.externalId}/resolve`, { outcome: '50-50' });

      const statuses = await adapter.statuses([a!, b!, c!]);

      const view = (id: string) => {
        const s = statuses.get(id);
        return [s?.closed, s?.acceptingOrders, s?.resolution?.outcome, s?.resolution?.payoutYes];
      };
      assert.deepEqual(view(a!.externalId), [true, false, true, 1]);
      assert.deepEqual(view(b!.externalId), [true, false, false, 0]);
      assert.deepEqual(view(c!.externalId), [true, false, null, 0.5]);
      assert.ok(statuses.get(a!.externalId)?.resolution?.resolvedAt instanceof Date);
    });

    it('when a market is closed but not resolved yet, then it is closed without a resolution', async () => {
      const rec = fixture(FIXTURES.binaryMarket);
      await admin('POST', `/markets/${rec.conditionId}/close`);
      const s = (await adapter.statuses([keyOf(rec)])).get(rec.conditionId);
      assert.deepEqual(s, { closed: true, acceptingOrders: false, resolution: null });
    });

    it('when the caller spells the id in upper case, then the answer is keyed by its spelling', async () => {
      const rec = fixture(FIXTURES.binaryMarket);
      const spelled = `0x${rec.conditionId.slice(2).toUpperCase()}`;
      const statuses = await adapter.statuses([{ externalId: spelled }]);
      assert.deepEqual([...statuses.keys()], [spelled]);
    });

    it('when the CLOB is asked about a resolved market, then the winning token is flagged', async () => {
      const rec = fixture(FIXTURES.resolvedMarket);
      const m = await adapter.clobMarket(rec.conditionId);
      assert.deepEqual(
        m?.tokens.map((t) => [t.token_id, t.winner]),
        [
          [rec.tokenIds[0], true],
          [rec.tokenIds[1], false],
        ],
      );
      assert.equal(await adapter.clobMarket(UNKNOWN_CONDITION), null);
    });
  });

  describe('books', () => {
    it('when a book is read, then bids and asks are best first although the wire lists them best last', async () => {
      const rec = fixture(FIXTURES.binaryMarket);
      const wire = (await (await fetch(`${emu.clobUrl}/book?token_id=${rec.tokenIds[0]}`)).json()) as {
        bids: { price: string }[];
        asks: { price: string }[];
      };
      const book = await adapter.book(keyOf(rec), 'yes');

      assert.ok(book);
      assert.equal(book.bids[0]!.price, Number(wire.bids.at(-1)!.price));
      assert.equal(book.asks[0]!.price, Number(wire.asks.at(-1)!.price));
      for (let i = 1; i < book.bids.length; i++) assert.ok(book.bids[i - 1]!.price > book.bids[i]!.price);
      for (let i = 1; i < book.asks.length; i++) assert.ok(book.asks[i - 1]!.price < book.asks[i]!.price);
      assert.ok(book.bids[0]!.price < book.asks[0]!.price);
      assert.deepEqual([book.tickSize, book.minOrderSize], [rec.tick, rec.minSize]);
    });

    it('when the NO book is read, then it mirrors the YES book', async () => {
      const rec = fixture(FIXTURES.binaryMarket);
      const yes = await adapter.book(keyOf(rec), 'yes');
      const no = await adapter.book({ externalId: rec.conditionId }, 'no');
      assert.ok(yes && no);
      assert.equal(no.bids[0]!.price, Number((1 - yes.asks[0]!.price).toFixed(6)));
      assert.equal(no.asks[0]!.price, Number((1 - yes.bids[0]!.price).toFixed(6)));
    });

    it('when the market is closed or unknown, then there is no book', async () => {
      assert.equal(await adapter.book(keyOf(fixture(FIXTURES.resolvedMarket)), 'yes'), null);
      assert.equal(await adapter.book({ externalId: UNKNOWN_CONDITION }, 'yes'), null);
    });
  });

  describe('executable quotes', () => {
    it('when a buy is sized in USD, then the asks are walked from the best and the fill reports its prices', async () => {
      const rec = fixture(FIXTURES.binaryMarket);
      const book = await adapter.book(keyOf(rec), 'yes');
      const ask = book!.asks[0]!;
      const small = await adapter.executableQuote(keyOf(rec), { outcome: 'yes', action: 'buy', amount: 1 });
      assert.deepEqual(
        [small?.bestPrice, small?.worstPrice, small?.filled, small?.source],
        [ask.price, ask.price, true, 'orderbook'],
      );

      const big = await adapter.executableQuote(keyOf(rec), {
        outcome: 'yes',
        action: 'buy',
        amount: ask.price * ask.size + 5,
      });
      assert.ok(big && big.worstPrice > ask.price && big.avgPrice > ask.price);

      const sell = await adapter.executableQuote(keyOf(rec), { outcome: 'no', action: 'sell', shares: 2 });
      const noBook = await adapter.book(keyOf(rec), 'no');
      assert.equal(sell?.bestPrice, noBook!.bids[0]!.price);
      assert.equal(
        await adapter.executableQuote(keyOf(fixture(FIXTURES.resolvedMarket)), {
          outcome: 'yes',
          action: 'buy',
        }),
        null,
      );
    });
  });

  describe('fast markets', () => {
    it('when upcoming fast markets are asked for, then the current and next crypto windows come back by slug', async () => {
      const now = new Date(emu.state.now());
      const markets = await adapter.upcomingFastMarkets(now);
      // 3 assets × 2 window lengths × (current + 2 ahead); a window boundary crossed mid-test may cost a few.
      assert.ok(markets.length >= 12 && markets.length <= 18, `${markets.length} fast markets`);
      for (const m of markets) {
        assert.match(m.slug!, /^(btc|eth|sol)-updown-(5m|15m)-\d+$/);
        assert.deepEqual(m.outcomes, ['Up', 'Down']);
        assert.deepEqual([m.closed, m.unsupported], [false, null]);
      }
    });
  });

  describe('positions', () => {
    it('when a wallet holds tokens, then its positions come back typed, dust included', async () => {
      const rec = fixture(FIXTURES.binaryMarket);
      const other = fixture(FIXTURES.tick0001Market);
      await admin('POST', '/positions', {
        user: WALLET,
        token_id: rec.tokenIds[0],
        size: 120,
        avgPrice: 0.2,
      });
      await admin('POST', '/positions', {
        user: WALLET,
        token_id: other.tokenIds[1],
        size: 0.4,
        avgPrice: 0.8,
      });

      const rows = await adapter.positions(WALLET);

      assert.equal(rows.length, 2);
      const row = rows.find((r) => r.tokenId === rec.tokenIds[0]);
      assert.ok(row);
      assert.equal(typeof row.tokenId, 'string');
      assert.equal(row.conditionId, rec.conditionId.toLowerCase());
      assert.deepEqual([row.size, row.avgPrice, row.outcomeIndex, row.redeemable], [120, 0.2, 0, false]);
      assert.equal(row.wallet.toLowerCase(), WALLET);
      const dust = rows.find((r) => r.tokenId === other.tokenIds[1]);
      assert.deepEqual([dust?.size, dust?.outcomeIndex], [0.4, 1]);

      const filtered = await adapter.positions(WALLET, { conditionIds: [rec.conditionId] });
      assert.deepEqual(
        filtered.map((r) => r.tokenId),
        [rec.tokenIds[0]],
      );
      assert.deepEqual(
        await adapter.positions(WALLET, { sizeThreshold: 1, conditionIds: [other.conditionId] }),
        [],
      );
    });

    it('when wallet positions are read through the adapter interface, then they carry the public fields', async () => {
      const rec = fixture(FIXTURES.binaryMarket);
      await admin('POST', '/positions', { user: WALLET, token_id: rec.tokenIds[1], size: 10, avgPrice: 0.7 });
      const [row, ...rest] = await adapter.walletPositions(WALLET);
      assert.equal(rest.length, 0);
      assert.deepEqual(
        [row?.conditionId, row?.tokenId, row?.outcome, row?.size, row?.redeemable],
        [rec.conditionId.toLowerCase(), rec.tokenIds[1], 'No', 10, false],
      );
      assert.equal(row?.slug, rec.slug);
      assert.ok(row!.curPrice! > 0 && row!.currentValue! > 0);
    });

    it('when the wallet is not an address, then it is refused before any request', async () => {
      await assert.rejects(adapter.positions('alice'), RangeError);
    });
  });

  describe('when the venue misbehaves', () => {
    let clock: number;
    let metrics: VenueMetrics;
    let flaky: PolymarketAdapter;
    const key = () => keyOf(fixture(FIXTURES.binaryMarket));
    const outcomes = async (endpoint: string) =>
      Object.fromEntries(
        (await metrics.requests.get()).values
          .filter((v) => v.labels.endpoint === endpoint)
          .map((v) => [v.labels.outcome, v.value]),
      );
    const circuitOf = (prefix: string) => flaky.health().find((h) => h.base_url.endsWith(prefix))?.circuit;
    const rejectsWith = (p: Promise<unknown>, kind: string) =>
      assert.rejects(p, (err: unknown) => err instanceof VenueHttpError && err.kind === kind);

    beforeEach(() => {
      clock = Date.now();
      metrics = createVenueMetrics(new Registry());
      flaky = build({
        retries: 0,
        timeoutMs: 300,
        breakerFailures: 3,
        breakerCooldownMs: 10_000,
        metrics,
        now: () => clock,
      });
    });
    afterEach(async () => {
      await admin('DELETE', '/faults');
    });

    it('when the CLOB answers 500s, then calls fail as VenueHttpError, are counted, the circuit opens and later recovers', async () => {
      await admin('POST', '/faults', { mode: '500', path_prefix: '/clob' });

      for (let i = 0; i < 3; i++) await rejectsWith(flaky.quotes([key()]), 'http');
      assert.equal(circuitOf('/clob'), 'open');
      assert.equal(circuitOf('/gamma'), 'closed');
      await admin('DELETE', '/requests');
      await rejectsWith(flaky.book(key(), 'yes'), 'circuit_open');
      assert.deepEqual(await requests(), [], 'an open circuit sends nothing');
      assert.deepEqual(await outcomes('clob.books'), { server_error: 3 });
      assert.deepEqual(await outcomes('clob.book'), { circuit_open: 1 });
      const clob = flaky.health().find((h) => h.base_url.endsWith('/clob'));
      assert.equal(clob?.consecutive_failures, 3);
      assert.match(clob?.last_error ?? '', /POST \/books: HTTP 500/);

      // Gamma is another host with its own circuit: still usable.
      assert.ok(await flaky.marketBySlug(FIXTURES.binaryMarket));

      await admin('DELETE', '/faults');
      clock += 10_000;
      assert.equal(circuitOf('/clob'), 'half_open');
      assert.ok((await flaky.quotes([key()])).size === 1);
      assert.equal(circuitOf('/clob'), 'closed');
    });

    it('when Gamma hangs, then the call times out as VenueHttpError kind timeout', async () => {
      await admin('POST', '/faults', { mode: 'timeout', count: 1, path_prefix: '/gamma', hang_ms: 5000 });
      await rejectsWith(flaky.marketBySlug(FIXTURES.binaryMarket), 'timeout');
      assert.deepEqual(await outcomes('gamma.market_by_slug'), { timeout: 1 });
      assert.ok(await flaky.marketBySlug(FIXTURES.binaryMarket), 'the next call works again');
    });

    it('when answers are malformed or truncated, then they fail as schema errors, never as wrong data', async () => {
      await admin('POST', '/faults', { mode: 'malformed', count: 1, path_prefix: '/clob/book' });
      await rejectsWith(flaky.book(key(), 'yes'), 'schema');
      await admin('POST', '/faults', { mode: 'malformed', count: 1, path_prefix: '/gamma/markets' });
      await rejectsWith(flaky.statuses([key()]), 'schema');
      await admin('POST', '/faults', { mode: 'truncated', count: 1, path_prefix: '/gamma/events' });
      await rejectsWith(flaky.eventBySlug(FIXTURES.multiOutcomeEvent), 'schema');
      await admin('POST', '/faults', { mode: 'malformed', count: 1, path_prefix: '/data' });
      await rejectsWith(flaky.positions(WALLET), 'schema');
      assert.deepEqual(await outcomes('clob.book'), { schema: 1 });
    });

    it('when the venue rate-limits, then the error is retryable and a retrying adapter gets through', async () => {
      await admin('POST', '/faults', { mode: '429', count: 1, path_prefix: '/gamma' });
      await assert.rejects(
        flaky.marketBySlug(FIXTURES.binaryMarket),
        (err: unknown) => err instanceof VenueHttpError && err.status === 429 && err.retryable,
      );

      await admin('POST', '/faults', { mode: '500', count: 1, path_prefix: '/clob' });
      const patient = build({ retries: 1, backoffMs: 1, metrics });
      assert.equal((await patient.quotes([key()])).size, 1);
      assert.deepEqual(await outcomes('clob.books'), { server_error: 1, ok: 1 });
    });
  });

  describe('health', () => {
    it('when health is read, then it lists the three hosts with their circuits', () => {
      const health = adapter.health();
      assert.deepEqual(
        health.map((h) => h.base_url),
        [emu.gammaUrl, emu.clobUrl, emu.dataUrl],
      );
      for (const h of health)
        assert.deepEqual([h.venue, h.circuit, h.consecutive_failures], ['polymarket', 'closed', 0]);
    });
  });

  describe('wire shapes the emulator does not produce', () => {
    const TOKENS = ['1'.repeat(77), '2'.repeat(77)];
    const wire = (over: Record<string, unknown> = {}) => ({
      id: '1',
      question: 'Q?',
      conditionId: `0x${'AB'.repeat(32)}`,
      slug: 'q',
      outcomes: '["Yes", "No"]',
      outcomePrices: '["0.4", "0.6"]',
      clobTokenIds: JSON.stringify(TOKENS),
      closed: false,
      ...over,
    });
    const map = (over: Record<string, unknown> = {}) => mapGammaMarket(GammaMarketSchema.parse(wire(over)));

    it('when arrays and numbers arrive in either encoding, then they map the same', () => {
      const a = map();
      const b = map({
        outcomes: ['Yes', 'No'],
        outcomePrices: [0.4, 0.6],
        clobTokenIds: TOKENS,
        volume24hr: '12.5',
      });
      assert.deepEqual([a.outcomes, a.yesPrice, a.yesTokenId], [b.outcomes, b.yesPrice, b.yesTokenId]);
      assert.equal(b.volume24h, 12.5);
      assert.equal(a.externalId, `0x${'ab'.repeat(32)}`);
      assert.deepEqual(
        [a.tickSize, a.minOrderSize, a.feeRateBps, a.url],
        [0.01, 5, 0, 'https://polymarket.com/market/q'],
      );
    });

    it('when a market is Protocol V2, undeployed or not binary, then it is marked unsupported with the reason', () => {
      assert.equal(
        map({ version: 'v2', clobTokenIds: undefined, positionIds: ['1', '2'] }).unsupported,
        UNSUPPORTED_PROTOCOL_V2,
      );
      assert.match(map({ conditionId: '' }).unsupported ?? '', /condition id/);
      assert.match(
        map({ outcomes: '["A","B","C"]', outcomePrices: '["0.2","0.3","0.5"]' }).unsupported ?? '',
        /3 outcomes/,
      );
      assert.match(map({ clobTokenIds: '[]' }).unsupported ?? '', /clobTokenIds/);
    });

    it('when a market is not final by §10, then it has no resolution', () => {
      const final = { closed: true, umaResolutionStatus: 'resolved', outcomePrices: '["0", "1"]' };
      assert.deepEqual(map(final).resolution, { outcome: false, payoutYes: 0, resolvedAt: null });
      assert.equal(map({ ...final, umaResolutionStatus: 'proposed' }).resolution, null);
      assert.equal(map({ ...final, outcomePrices: '["0.9995", "0.0005"]' }).resolution, null);
      assert.equal(map({ ...final, closed: false }).resolution, null);
      assert.equal(map({ ...final, umaResolutionStatus: undefined }).resolution, null);
      const at = map({ ...final, closedTime: '2026-11-02 21:04:11+00' }).resolution?.resolvedAt;
      assert.equal(at?.toISOString(), '2026-11-02T21:04:11.000Z');
    });

    it('when a field we rely on is missing or of the wrong type, then the schema refuses the answer', () => {
      for (const broken of [
        { question: undefined },
        { closed: 'no' },
        { outcomePrices: '["abc", "0.5"]' },
        { outcomePrices: '["0.4", "0.6"' },
        { clobTokenIds: JSON.stringify([1e76, 2e76]) },
        { orderPriceMinTickSize: 'one cent' },
      ]) {
        assert.equal(GammaMarketSchema.safeParse(wire(broken)).success, false, JSON.stringify(broken));
      }
      assert.equal(GammaMarketSchema.safeParse(wire({ somethingNew: { nested: true } })).success, true);
    });

    it('when positions come in the newer snake_case envelope, then they read like the camelCase rows', () => {
      const rows = PositionsAnswerSchema.parse({
        data: [
          {
            proxy_wallet: WALLET,
            token_id: TOKENS[0],
            condition_id: `0x${'AB'.repeat(32)}`,
            current_size: '5',
            avg_price: 0.4,
            current_price: 0.5,
            outcome_index: 999,
            status: 'OPEN',
          },
        ],
        pagination: { limit: 100, offset: 0, has_more: false },
      });
      assert.deepEqual(
        [rows[0]?.tokenId, rows[0]?.conditionId, rows[0]?.size, rows[0]?.curPrice, rows[0]?.outcomeIndex],
        [TOKENS[0], `0x${'ab'.repeat(32)}`, 5, 0.5, null],
      );
      assert.equal(PositionsAnswerSchema.safeParse({ data: [{ proxy_wallet: WALLET }] }).success, false);
    });
  });
});
