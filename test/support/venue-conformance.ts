import assert from 'node:assert/strict';
import type { VenueAdapter, VenueMarketKey } from '../../shared/domains/venues/venue-adapter.js';
import { isVenueId, type VenueId } from '../../shared/domains/venues/venue-id.js';
import { testContext } from './context.js';
import { api, type RegisteredAgent } from './http.js';

/**
 * The contract every VenueAdapter must keep, whatever venue is behind it. Each venue's test file
 * calls `describeVenueAdapterConformance` with a setup that provides a market the venue knows, a
 * key it does not, and hooks that move the known market's price and resolve it on the venue (or
 * its emulator). The cases run in order: the resolution comes last, since it ends trading.
 */

export interface VenueConformanceFixture {
  adapter: VenueAdapter;
  /** An open, tradeable market with a two-sided book. */
  knownKey: VenueMarketKey;
  /** Well-formed for the venue, but no market of it. */
  unknownKey: VenueMarketKey;
  /** Makes the venue's YES price of `key` move to about `yes`. */
  movePrice(key: VenueMarketKey, yes: number): Promise<void>;
  /** Resolves `key` on the venue: `true` YES wins, `false` NO wins. */
  resolve(key: VenueMarketKey, outcome: boolean): Promise<void>;
  teardown(): Promise<void>;
}

/** How far a quote may sit from a price the venue was moved to (a tick or two of book spread). */
const PRICE_TOLERANCE = 0.02;

const inOpenUnitInterval = (x: number | null | undefined): boolean =>
  typeof x === 'number' && Number.isFinite(x) && x > 0 && x < 1;

export function describeVenueAdapterConformance(
  name: string,
  setup: () => Promise<VenueConformanceFixture>,
): void {
  describe(`venue adapter conformance: ${name}`, function () {
    let f: VenueConformanceFixture;

    before(async function () {
      this.timeout(60_000);
      f = await setup();
    });

    after(async function () {
      await f?.teardown();
    });

    it('when a known market is asked for, then it has a question and a YES price in (0, 1)', async () => {
      const m = await f.adapter.market(f.knownKey);
      assert.ok(m, 'known market not found');
      assert.equal(m.venue, f.adapter.id);
      assert.equal(m.externalId.toLowerCase(), f.knownKey.externalId.toLowerCase());
      assert.ok(m.question.trim().length > 0, 'empty question');
      assert.ok(inOpenUnitInterval(m.yesPrice), `yesPrice ${m.yesPrice} not in (0, 1)`);
      assert.equal(m.outcomes.length, 2);
      assert.equal(m.closed, false);
      assert.equal(m.resolution, null);
    });

    it('when an unknown market is asked for, then the answer is null', async () => {
      assert.equal(await f.adapter.market(f.unknownKey), null);
    });

    it('when quotes are asked for, then the known market has a YES price in (0, 1) and the unknown none', async () => {
      const quotes = await f.adapter.quotes([f.knownKey, f.unknownKey]);
      const q = quotes.get(f.knownKey.externalId);
      assert.ok(q, 'no quote for the known market');
      assert.ok(inOpenUnitInterval(q.yesPrice), `yesPrice ${q.yesPrice} not in (0, 1)`);
      if (q.bestBid !== null && q.bestAsk !== null) assert.ok(q.bestBid <= q.bestAsk, 'crossed quote');
      assert.equal(quotes.has(f.unknownKey.externalId), false);
    });

    it('when the venue price moves, then quotes follow it', async () => {
      for (const target of [0.3, 0.7]) {
        await f.movePrice(f.knownKey, target);
        const q = (await f.adapter.quotes([f.knownKey])).get(f.knownKey.externalId);
        assert.ok(q, 'no quote after the move');
        assert.ok(
          Math.abs(q.yesPrice - target) <= PRICE_TOLERANCE,
          `quote ${q.yesPrice} did not follow the move to ${target}`,
        );
      }
    });

    it('when the YES book is read, then both sides are best first and the best bid is not above the best ask', async () => {
      const book = await f.adapter.book(f.knownKey, 'yes');
      assert.ok(book, 'no book for the known market');
      assert.ok(book.bids.length > 0 && book.asks.length > 0, 'one-sided book');
      for (let i = 1; i < book.bids.length; i++) assert.ok(book.bids[i - 1]!.price >= book.bids[i]!.price);
      for (let i = 1; i < book.asks.length; i++) assert.ok(book.asks[i - 1]!.price <= book.asks[i]!.price);
      assert.ok(book.bids[0]!.price <= book.asks[0]!.price, 'crossed book');
      assert.ok(book.tickSize > 0 && book.minOrderSize >= 0);
    });

    it('when health is asked for, then it is a list of host views', () => {
      const health = f.adapter.health();
      assert.ok(Array.isArray(health));
      for (const h of health) {
        assert.equal(h.venue, f.adapter.id);
        assert.ok(['closed', 'open', 'half_open'].includes(h.circuit));
      }
    });

    it('when statuses are asked for, then the known market is open and the unknown absent', async () => {
      const statuses = await f.adapter.statuses([f.knownKey, f.unknownKey]);
      const s = statuses.get(f.knownKey.externalId);
      assert.ok(s, 'no status for the known market');
      assert.deepEqual([s.closed, s.resolution], [false, null]);
      assert.equal(statuses.has(f.unknownKey.externalId), false);
    });

    it('when the market resolves NO on the venue, then its status is resolved with outcome false', async () => {
      await f.resolve(f.knownKey, false);
      const s = (await f.adapter.statuses([f.knownKey])).get(f.knownKey.externalId);
      assert.ok(s, 'no status after resolution');
      assert.ok(s.resolution, 'not resolved');
      assert.equal(s.resolution.outcome, false);
      assert.equal(s.resolution.payoutYes, 0);
      assert.deepEqual([s.closed, s.acceptingOrders], [true, false]);
    });
  });
}

/** What the trading contract needs: an agent allowed to trade on the venue and an open market there. */
export interface TradingConformanceFixture {
  agent: RegisteredAgent;
  /** The service id of an open market the venue trades, with liquidity for a 10-unit buy. */
  marketId: string;
}

export interface TradingConformanceOptions {
  /**
   * Live trades go through `POST /api/sdk/trade`. False for venues whose live orders the agent's
   * wallet signs (their quote and submit endpoints, tested by the venue's own suite): only dry runs
   * are priced there.
   */
  live: boolean;
}

const ORDER_TYPES = ['GTC', 'GTD', 'FOK', 'FAK'] as const;

/**
 * The contract every VenueTrading must keep, checked through the service as an agent reaches it:
 * the venue's trading registered under its id with capabilities its members agree with, a dry run
 * that prices a buy and records nothing, and (for venues traded through `POST /api/sdk/trade`) a
 * live buy that lands as a position on the venue and a sale of part of it.
 */
export function describeVenueTradingConformance(
  venue: string,
  setup: () => Promise<TradingConformanceFixture>,
  { live }: TradingConformanceOptions,
): void {
  describe(`venue trading conformance: ${venue}`, function () {
    this.timeout(60_000);
    let f: TradingConformanceFixture;
    const trading = () => testContext().deps.trading.get(venue as VenueId);
    const tradeOnVenue = (body: Record<string, unknown>) =>
      api()
        .post('/api/sdk/trade')
        .set('Authorization', `Bearer ${f.agent.api_key}`)
        .send({ venue, market_id: f.marketId, side: 'yes', ...body });

    before(async function () {
      this.timeout(60_000);
      f = await setup();
    });

    it('when the venue is registered, then its adapter and its trading answer to the same id', () => {
      const { deps } = testContext();
      assert.ok(isVenueId(venue), `${venue} is no venue of this process`);
      assert.equal(deps.venues.get(venue as VenueId).id, venue);
      assert.equal(trading().venue, venue);
    });

    it('when its capabilities are read, then its members agree with them', () => {
      const t = trading();
      const c = t.capabilities;
      assert.ok(['paper', 'real'].includes(c.money));
      assert.ok(c.orderTypes.length > 0 && c.orderTypes.every((o) => ORDER_TYPES.includes(o)));
      assert.equal(typeof t.cancel === 'function', c.cancellable, 'cancel() exactly when cancellable');
      if (c.restingOrders)
        assert.ok(t.orderState ?? t.followOrder, 'resting orders need a way to follow them');
      assert.ok(c.maxBuyMicro === null || (Number.isInteger(c.maxBuyMicro) && c.maxBuyMicro > 0));
      const signed = [t.quote, t.submitSigned, t.signerStatus].filter(Boolean).length;
      assert.ok(
        signed === 0 || signed === 3,
        'client-signed orders need quote, submitSigned and signerStatus',
      );
      assert.equal(
        live,
        signed === 0,
        'live trades go through POST /api/sdk/trade unless orders are client-signed',
      );
      for (const order_type of ORDER_TYPES) {
        const warnings = t.warnings({ order_type } as Parameters<typeof t.warnings>[0]);
        assert.ok(Array.isArray(warnings) && warnings.every((w) => typeof w === 'string'));
      }
    });

    it('when a buy is a dry run, then it is priced on the venue and nothing is recorded', async () => {
      const { Trade } = testContext().deps.models;
      const before = await Trade.countDocuments({ agentId: f.agent.agent_id });
      const res = await tradeOnVenue({ action: 'buy', amount: 10, dry_run: true });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.success, true, JSON.stringify(res.body));
      assert.equal(res.body.dry_run, true);
      assert.ok(res.body.shares_bought > 0, 'a dry run names the shares the amount buys');
      assert.equal(await Trade.countDocuments({ agentId: f.agent.agent_id }), before);
    });

    if (!live) return;

    it('when a live buy fills, then it shows as a position on the venue', async () => {
      const res = await tradeOnVenue({ action: 'buy', amount: 10 });
      assert.equal(res.body.success, true, JSON.stringify(res.body));
      // A venue whose matches settle on chain later answers `unconfirmed` until they do.
      assert.equal(res.body.fill_status, trading().settlement ? 'unconfirmed' : 'filled');
      assert.ok(res.body.shares_bought > 0);
      const positions = await api()
        .get(`/api/sdk/positions?venue=${venue}`)
        .set('Authorization', `Bearer ${f.agent.api_key}`)
        .expect(200);
      const row = positions.body.positions.find((p: { market_id: string }) => p.market_id === f.marketId);
      assert.ok(row, 'no position on the venue after the buy');
      assert.equal(row.venue, venue);
      assert.ok(Math.abs(row.shares_yes - res.body.shares_bought) < 1e-5);
    });

    it('when part of the position is sold, then the sale fills and the position shrinks by it', async () => {
      const held = async () => {
        const res = await api()
          .get(`/api/sdk/positions?venue=${venue}`)
          .set('Authorization', `Bearer ${f.agent.api_key}`)
          .expect(200);
        return res.body.positions.find((p: { market_id: string }) => p.market_id === f.marketId)
          .shares_yes as number;
      };
      const before = await held();
      const shares = Math.floor(before / 2);
      const res = await tradeOnVenue({ action: 'sell', shares });
      assert.equal(res.body.success, true, JSON.stringify(res.body));
      assert.ok(res.body.shares_sold > 0);
      assert.ok(Math.abs((await held()) - (before - res.body.shares_sold)) < 1e-5);
    });
  });
}
