import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { resolveMarket } from '../../shared/domains/markets/resolve-market.js';
import { price, rawPrice, stateAt, withShares } from '../../shared/domains/markets/lmsr.js';
import { SimAdapter } from '../../shared/domains/venues/sim/sim-adapter.js';
import { testContext } from '../support/context.js';
import { agentWithMarket, makeMarket, trade } from '../support/factories.js';
import { registerAgent } from '../support/http.js';
import {
  describeVenueAdapterConformance,
  describeVenueTradingConformance,
} from '../support/venue-conformance.js';

const adapter = () => new SimAdapter(testContext().deps.models);

describe('sim venue adapter #integration', () => {
  it('when a seeded sim market is asked for by its service id, then it comes back as a venue market', async () => {
    const market = await makeMarket({ p0: 0.3, eventId: `ev-${randomUUID()}`, eventName: 'Test event' });

    const m = await adapter().market({ externalId: market._id });

    assert.ok(m);
    assert.equal(m.venue, 'sim');
    assert.equal(m.externalId, market._id);
    assert.equal(m.question, market.question);
    assert.equal(m.slug, null);
    assert.equal(m.eventId, market.eventId);
    assert.ok(Math.abs(m.yesPrice! - 0.3) < 1e-9);
    assert.equal(m.bestBid, m.yesPrice);
    assert.equal(m.bestAsk, m.yesPrice);
    assert.equal(m.liquidity, market.book.b);
    assert.deepEqual([m.closed, m.acceptingOrders, m.resolution], [false, true, null]);
  });

  it('when the id is unknown or not a service id, then there is no market', async () => {
    assert.equal(await adapter().market({ externalId: randomUUID() }), null);
    assert.equal(await adapter().market({ externalId: 'KXNOPE-1' }), null);
    assert.equal(await adapter().marketBySlug(), null);
  });

  it('when the sim event is asked for by its event id, then it lists its markets', async () => {
    const eventId = `ev-${randomUUID()}`;
    await makeMarket({ eventId, eventName: 'Who wins?', outcomeName: 'A' });
    await makeMarket({ eventId, eventName: 'Who wins?', outcomeName: 'B' });

    const event = await adapter().eventBySlug(eventId);

    assert.equal(event?.title, 'Who wins?');
    assert.deepEqual(event?.markets.map((m) => m.outcomeName).sort(), ['A', 'B']);
    assert.equal(await adapter().eventBySlug(`ev-${randomUUID()}`), null);
  });

  it('when a buy moved the book, then quotes give the new LMSR price with no spread', async () => {
    const { agent, market } = await agentWithMarket(0.5);
    const res = await trade(agent, { market_id: market._id, side: 'yes', amount: 100 });
    assert.equal(res.body.success, true, JSON.stringify(res.body));

    const quotes = await adapter().quotes([{ externalId: market._id }, { externalId: randomUUID() }]);

    assert.equal(quotes.size, 1);
    const q = quotes.get(market._id)!;
    const stored = await testContext().deps.models.Market.findById(market._id).lean();
    assert.ok(q.yesPrice > 0.5);
    assert.ok(Math.abs(q.yesPrice - stored!.currentPrice) < 1e-9);
    assert.deepEqual([q.bestBid, q.bestAsk, q.spread], [q.yesPrice, q.yesPrice, 0]);
  });

  it('when a market is resolved, then its status carries the resolution and its book is empty', async () => {
    const { deps } = testContext();
    const [open, resolved] = await Promise.all([makeMarket(), makeMarket()]);
    await resolveMarket(deps.models, resolved._id, true, deps.clock);

    const statuses = await adapter().statuses([{ externalId: open._id }, { externalId: resolved._id }]);
    const book = await adapter().book({ externalId: resolved._id }, 'yes');
    const quote = (await adapter().quotes([{ externalId: resolved._id }])).get(resolved._id);

    assert.deepEqual(statuses.get(open._id), { closed: false, acceptingOrders: true, resolution: null });
    const r = statuses.get(resolved._id)!;
    assert.deepEqual(
      [r.closed, r.acceptingOrders, r.resolution?.outcome, r.resolution?.payoutYes],
      [true, false, true, 1],
    );
    assert.ok(r.resolution?.resolvedAt instanceof Date);
    assert.deepEqual([book?.bids, book?.asks], [[], []]);
    assert.deepEqual(quote, { yesPrice: 1, bestBid: null, bestAsk: null, spread: null });
  });

  it('when the book of an open market is asked for, then buying each level moves the price to it', async () => {
    const market = await makeMarket({ p0: 0.42, b: 1000 });

    const book = await adapter().book({ externalId: market._id }, 'yes');

    assert.ok(book);
    assert.equal(book.tickSize, 0.01);
    assert.equal(book.minOrderSize, 0.00001);
    assert.deepEqual(
      book.asks.map((l) => l.price),
      [0.43, 0.44, 0.45, 0.46, 0.47],
    );
    assert.deepEqual(
      book.bids.map((l) => l.price),
      [0.41, 0.4, 0.39, 0.38, 0.37],
    );
    const s = stateAt(1000, 0.42);
    let bought = 0;
    for (const level of book.asks) {
      bought += level.size;
      assert.ok(Math.abs(rawPrice(withShares(s, 'yes', bought), 'yes') - level.price) < 1e-6);
    }
    let sold = 0;
    for (const level of book.bids) {
      sold += level.size;
      assert.ok(Math.abs(price(withShares(s, 'yes', -sold), 'yes') - level.price) < 1e-6);
    }
  });

  it('when an executable quote is asked for, then it is what a dry run of that size fills at', async () => {
    const { agent, market } = await agentWithMarket(0.35);

    const buy = await adapter().executableQuote(
      { externalId: market._id },
      { outcome: 'no', action: 'buy', amount: 120.5 },
    );
    const dry = await trade(agent, { market_id: market._id, side: 'no', amount: 120.5, dry_run: true });
    const top = await adapter().executableQuote(
      { externalId: market._id },
      { outcome: 'yes', action: 'sell' },
    );

    assert.equal(dry.body.success, true, JSON.stringify(dry.body));
    assert.equal(buy?.source, 'lmsr');
    assert.equal(buy?.filled, true);
    assert.equal(buy?.shares, dry.body.shares_bought);
    assert.equal(buy?.amount, 120.5);
    assert.ok(Math.abs(buy!.bestPrice - 0.65) < 1e-9);
    assert.ok(buy!.bestPrice < buy!.avgPrice && buy!.avgPrice < buy!.worstPrice);
    assert.deepEqual([top?.shares, top?.filled], [0, true]);
    assert.ok(Math.abs(top!.bestPrice - 0.35) < 1e-9);
  });

  it('when open markets are listed, then active catalogue markets come by volume, filtered by the query', async () => {
    const tag = randomUUID().slice(0, 8);
    const [low, high] = await Promise.all([
      makeMarket({ question: `List ${tag} low?`, volume24hMicro: 2_000_000_000_000 }),
      makeMarket({ question: `List ${tag} high?`, volume24hMicro: 3_000_000_000_000 }),
      makeMarket({ question: `List ${tag} closed?`, volume24hMicro: 4_000_000_000_000, status: 'closed' }),
      makeMarket({
        question: `List ${tag} tracking?`,
        volume24hMicro: 5_000_000_000_000,
        analyticsOnly: true,
      }),
    ]);

    const listed = await adapter().listOpen({ limit: 10, minVolume: 1_000_000, q: tag });

    assert.deepEqual(
      listed.map((m) => m.externalId),
      [high._id, low._id],
    );
    assert.deepEqual(adapter().health(), []);
    assert.deepEqual(await adapter().upcomingFastMarkets(), []);
  });
});

// The shared adapter contract, run against the sim adapter over a market of the test's own: a price
// move re-anchors its LMSR at the target (as the re-anchoring job does), a resolution is the
// operator's resolve.
describeVenueAdapterConformance('sim', async () => {
  const market = await makeMarket({ p0: 0.5 });
  const { models, clock } = testContext().deps;
  return {
    adapter: adapter(),
    knownKey: { externalId: market._id },
    unknownKey: { externalId: randomUUID() },
    movePrice: async (key, yes) => {
      const s = stateAt(market.book.b, yes);
      await models.Market.updateOne(
        { _id: key.externalId },
        { $set: { 'book.q0Yes': s.qYes, 'book.q0No': s.qNo, currentPrice: yes } },
      );
    },
    resolve: async (key, outcome) => {
      await resolveMarket(models, key.externalId, outcome, clock);
    },
    teardown: async () => undefined,
  };
});

// Paper trading on the sim book: any registered agent, no claim needed.
describeVenueTradingConformance(
  'sim',
  async () => ({ agent: await registerAgent(), marketId: (await makeMarket({ p0: 0.5 }))._id }),
  { live: true },
);
