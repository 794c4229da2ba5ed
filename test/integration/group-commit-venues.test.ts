import assert from 'node:assert/strict';
import { tradeContext } from '../../shared/domains/trading/context.js';
import { executeTradeGroup } from '../../shared/domains/trading/group-commit.js';
import { TradingVenues } from '../../shared/domains/trading/venue-trading.js';
import { testContext } from '../support/context.js';
import { makeMarket, recordPendingBuy } from '../support/factories.js';
import { registerAgent } from '../support/http.js';

/**
 * The worker's group commit hands each venue its claimed trades (the sim engine takes its own together):
 * one venue's trouble stays with that venue's trades.
 */
describe('a group commit of trades on several venues #integration', () => {
  it('when a group holds a trade on a venue this process does not trade on, then only that trade gets the error and the sim trades fill', async () => {
    const { deps } = testContext();
    const market = await makeMarket();
    const [a, b] = await Promise.all([registerAgent(), registerAgent()]);
    const sim = await recordPendingBuy(a.agent_id, market._id, { amountMicro: 4_000_000 });
    const elsewhere = await recordPendingBuy(b.agent_id, market._id, { venue: 'polymarket' });
    const ctx = tradeContext(deps);
    const simOnly = new TradingVenues(ctx.venues.all().filter((v) => v.venue === 'sim'));

    const answers = await executeTradeGroup({ ...ctx, venues: simOnly }, [elsewhere, sim]);
    const filled = answers.get(sim)!;
    assert.ok('result' in filled && filled.result.success, JSON.stringify(filled));
    const refused = answers.get(elsewhere)!;
    assert.ok('error' in refused);
    assert.equal((refused.error as { code?: string }).code, 'venue_unavailable');
  });
});
