import assert from 'node:assert/strict';
import { checkResolutions } from '../../shared/domains/venue-sync/check-resolutions.js';
import { testContext } from '../support/context.js';
import { trade as simTrade } from '../support/factories.js';
import { api, type RegisteredAgent } from '../support/http.js';
import { asAgent, claimedWithRealTrading } from '../support/polymarket-traders.js';
import { until } from '../support/until.js';
import { fixtureTrade, importFixtureMarket } from './fixture-agent.js';
import { FIXTURE_VENUE, fixtureExchange } from './index.js';

const get = (agent: RegisteredAgent, path: string) => api().get(path).set(asAgent(agent)).expect(200);
const positionOn = async (agent: RegisteredAgent, venue: string, marketId: string) =>
  (await get(agent, `/api/sdk/positions?venue=${venue}&status=all`)).body.positions.find(
    (p: { market_id: string }) => p.market_id === marketId,
  );
const balanceOf = async (agent: RegisteredAgent) =>
  (await get(agent, '/api/sdk/agents/me')).body.balance as number;

describe('a venue nobody ships, end to end #integration', function () {
  this.timeout(60_000);

  it('when an agent imports a fixture market, quotes, buys, sells and the venue resolves it, then the market resolves, sim pays out and the venue position is redeemable', async () => {
    const { agent } = await claimedWithRealTrading();
    const listed = fixtureExchange.listMarket('Will the fixture venue settle?', 0.4);

    // Import: the generic import reads the page URL through the fixture adapter.
    const imported = await importFixtureMarket(agent, listed.slug);
    assert.equal(imported.body.status, 'imported', JSON.stringify(imported.body));
    assert.equal(imported.body.import_source, FIXTURE_VENUE);
    assert.equal(imported.body.external_id, listed.id);
    assert.ok(Math.abs(imported.body.current_probability - 0.4) < 0.01);
    const marketId = imported.body.market_id as string;
    assert.equal((await importFixtureMarket(agent, listed.slug)).body.status, 'already_exists');
    const market = (await get(agent, `/api/sdk/markets/${marketId}`)).body.market;
    assert.equal(market.venue, FIXTURE_VENUE);

    // Quote: a dry run prices the buy on the venue's book and places nothing.
    const quote = await fixtureTrade(agent, {
      market_id: marketId,
      action: 'buy',
      amount: 20,
      dry_run: true,
    });
    assert.equal(quote.body.success, true, JSON.stringify(quote.body));
    assert.equal(quote.body.dry_run, true);
    assert.ok(quote.body.shares_bought > 0);

    // Buy: recorded, run by the worker, placed on the exchange under the trade id.
    const buy = await fixtureTrade(agent, { market_id: marketId, action: 'buy', amount: 20 });
    assert.equal(buy.body.success, true, JSON.stringify(buy.body));
    assert.equal(buy.body.fill_status, 'filled');
    assert.ok(Math.abs(buy.body.shares_bought - quote.body.shares_bought) < 1e-5, 'fills as quoted');
    const order = fixtureExchange.orderByClientId(buy.body.trade_id);
    assert.equal(order?.id, buy.body.venue_order_id);
    assert.equal(order?.status, 'matched');

    // Sell part of it; a sale beyond the holding is refused before reaching the venue.
    const sold = Math.floor(buy.body.shares_bought / 2);
    const sell = await fixtureTrade(agent, { market_id: marketId, action: 'sell', shares: sold });
    assert.equal(sell.body.success, true, JSON.stringify(sell.body));
    assert.ok(Math.abs(sell.body.shares_sold - sold) < 1e-5);
    const oversold = await fixtureTrade(agent, { market_id: marketId, action: 'sell', shares: 1000 });
    assert.equal(oversold.body.success, false);
    assert.equal(oversold.body.error_code, 'insufficient_shares');
    const held = buy.body.shares_bought - sold;
    assert.ok(Math.abs((await positionOn(agent, FIXTURE_VENUE, marketId)).shares_yes - held) < 1e-5);

    // Real-venue trades move the owner's money on the venue, never the agent's $SIM.
    assert.equal(await balanceOf(agent), 10_000);

    // The imported market trades on sim too: that position is what settlement pays.
    const simBuy = await simTrade(agent, { market_id: marketId, side: 'yes', amount: 10 });
    assert.equal(simBuy.body.success, true, JSON.stringify(simBuy.body));
    const simShares = simBuy.body.shares_bought as number;
    const balanceBefore = await balanceOf(agent);

    // Resolve on the venue; the service's resolution check picks it up and settles.
    fixtureExchange.resolve(listed.id, true);
    const { deps } = testContext();
    const [report] = (await checkResolutions(deps)).filter((r) => r.venue === FIXTURE_VENUE);
    assert.equal(report?.error, null);
    assert.ok(report!.resolved >= 1);
    const settled = await until(
      () => deps.models.Market.findById(marketId).lean(),
      (m) => Boolean(m?.settledAt),
    );
    assert.ok(settled?.settledAt, 'not settled');
    const resolved = (await get(agent, `/api/sdk/markets/${marketId}`)).body.market;
    assert.deepEqual([resolved.status, resolved.outcome], ['resolved', true]);

    // Settle: sim pays each winning share 1 $SIM; the venue position waits for its redemption.
    const paid = (await balanceOf(agent)) - balanceBefore;
    assert.ok(Math.abs(paid - simShares) < 0.011, `paid ${paid} for ${simShares} shares`);
    assert.equal((await positionOn(agent, 'sim', marketId)).status, 'settled');
    const venuePosition = await positionOn(agent, FIXTURE_VENUE, marketId);
    assert.equal(venuePosition.redeemable, true);
    assert.equal(venuePosition.redeemable_side, 'yes');

    // The venue takes no more orders on it, and neither does the service.
    const late = await fixtureTrade(agent, { market_id: marketId, action: 'buy', amount: 5 });
    assert.equal(late.body.success, false);
  });
});
