import assert from 'node:assert/strict';
import { tradeContext } from '../../shared/domains/trading/context.js';
import { runTrade } from '../../shared/domains/trading/run-trade.js';
import type { TradeExecutionContext } from '../../shared/domains/trading/venue-trading.js';
import { finishTrade } from '../../shared/domains/trading/trade-lifecycle.js';
import type { TradeResult } from '../../shared/domains/trading/trade.schemas.js';
import { testContext } from '../support/context.js';
import { makeMarket, recordPendingBuy } from '../support/factories.js';
import { registerAgent } from '../support/http.js';

/**
 * Found by a chaos run with five database kills: a client was answered "filled" for a trade the
 * database still held as `pending`. A worker ran a trade whose claim took nothing, as if it were
 * a resume, and the finish that matched nothing answered the worker's own result. A trade is run
 * only once claimed, and answered only as its record says.
 */
describe('a trade its claim did not take #integration', () => {
  async function pendingTrade() {
    const [agent, market] = await Promise.all([registerAgent(), makeMarket()]);
    return recordPendingBuy(agent.agent_id, market._id, { amountMicro: 3_000_000 });
  }

  it('when the claim takes nothing but the trade still reads pending, then it is not run (nothing logged) and the next try claims and fills it', async () => {
    const { deps } = testContext();
    const id = await pendingTrade();
    const ctx = tradeContext(deps);
    let first = true;
    const Trade = new Proxy(deps.models.Trade, {
      get: (target, name, receiver) =>
        name === 'findOneAndUpdate' && first
          ? () => {
              first = false;
              return { lean: async () => null };
            }
          : Reflect.get(target, name, receiver),
    });
    const missed = { ...ctx, models: { ...ctx.models, Trade } } as TradeExecutionContext;
    await assert.rejects(runTrade(missed, id), { code: 'trade_not_claimed' });
    assert.equal((await deps.models.Trade.findById(id).lean())?.status, 'pending');
    assert.equal(await deps.models.LedgerEntry.countDocuments({ _id: { $regex: `^${id}` } }), 0);

    const filled = await runTrade(ctx, id);
    assert.equal(filled.fill_status, 'filled');
    assert.equal((await deps.models.Trade.findById(id).lean())?.status, 'filled');
  });

  it('when a finish finds the trade neither executing nor finished, then it answers nothing instead of its own result', async () => {
    const { deps } = testContext();
    const id = await pendingTrade();
    const result = { success: true, fill_status: 'filled', trade_id: id } as TradeResult;
    await assert.rejects(
      finishTrade(
        deps.models,
        id,
        result,
        { fill: { sharesMicro: 1, amountMicro: 1, priceBefore: 0.5, priceAfter: 0.5, balanceAfterMicro: 0 } },
        new Date(),
      ),
      { code: 'trade_outcome_not_recorded' },
    );
    assert.equal((await deps.models.Trade.findById(id).lean())?.status, 'pending');
  });
});
