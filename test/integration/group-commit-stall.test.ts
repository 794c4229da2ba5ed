import assert from 'node:assert/strict';
import { DatabaseStalledError } from '../../shared/infra/database-unavailable.js';
import { tradeContext } from '../../shared/domains/trading/context.js';
import type { TradeExecutionContext } from '../../shared/domains/trading/venue-trading.js';
import { TradeGroupCommit } from '../../shared/domains/trading/group-commit.js';
import { testContext } from '../support/context.js';
import { makeMarket, recordPendingBuy } from '../support/factories.js';
import { registerAgent } from '../support/http.js';

/**
 * Found by a chaos run: after a database kill one call of a worker's group commit never settled,
 * and every later trade of that process waited behind it (three minutes, until the worker was
 * killed). A group is bounded; its trades' jobs wait and run again.
 */
describe('group commit stuck on the database #integration', () => {
  it('when a group never settles, then its trades fail as a database outage past the deadline and the next group runs', async () => {
    const { deps } = testContext();
    const agent = await registerAgent();
    const market = await makeMarket();
    const pending = () => recordPendingBuy(agent.agent_id, market._id, { amountMicro: 2_000_000 });
    const stuck = await pending();
    const ctx = tradeContext(deps);
    // The first claim of a group goes to a database that never answers.
    let hang = true;
    const Trade = new Proxy(deps.models.Trade, {
      get: (target, name, receiver) => {
        const real = Reflect.get(target, name, receiver) as unknown;
        if (typeof real !== 'function') return real;
        return (...args: unknown[]) => {
          if (hang) {
            hang = false;
            return Object.assign(new Promise(() => undefined), { lean: () => new Promise(() => undefined) });
          }
          return (real as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const groupCommit = new TradeGroupCommit(
      { ...ctx, models: { ...ctx.models, Trade } } as TradeExecutionContext,
      {
        maxGroup: 8,
        waitMs: 0,
        deadlineMs: 200,
      },
    );
    await assert.rejects(groupCommit.execute(stuck), DatabaseStalledError);
    const next = await groupCommit.execute(await pending());
    assert.equal(next.success, true, JSON.stringify(next));
    assert.equal(next.fill_status, 'filled');
  });
});
