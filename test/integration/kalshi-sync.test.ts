import assert from 'node:assert/strict';
import { checkResolutions } from '../../shared/domains/venue-sync/check-resolutions.js';
import { syncExternalPrices } from '../../shared/domains/venue-sync/sync-external-prices.js';
import { testContext } from '../support/context.js';
import { assertAgentConserved } from '../support/invariants.js';
import { trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { jobsSettled } from '../support/jobs.js';
import { kalshiAdmin, newKalshiEvent } from '../support/venue-emulators.js';

let tick = 0;
const syncPrices = () => syncExternalPrices(testContext().deps, `kalshi-test-${Date.now()}-${tick++}`);

async function importOne(agent: RegisteredAgent, yes = 0.5) {
  const event = await newKalshiEvent([{ yes_sub_title: 'Synced', yes }]);
  const ticker = event.markets[0]!.ticker;
  const res = await api()
    .post('/api/sdk/markets/import/kalshi')
    .set('Authorization', `Bearer ${agent.api_key}`)
    .send({ kalshi_url: ticker });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { ticker, marketId: res.body.market_id as string };
}
const market = (id: string) =>
  testContext()
    .deps.models.Market.findById(id)
    .lean()
    .then((m) => m!);
const balanceOf = async (agent: RegisteredAgent) =>
  (await api().get('/api/sdk/agents/me').set('Authorization', `Bearer ${agent.api_key}`)).body
    .balance as number;

async function waitForSettlement(marketId: string) {
  for (let i = 0; i < 100; i++) {
    if ((await market(marketId)).settledAt) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail('not settled');
}

describe('Imported Kalshi markets follow Kalshi #integration', () => {
  let agent: RegisteredAgent;
  beforeEach(async () => {
    agent = await registerAgent();
  });

  it('when the Kalshi price moves, then external_price and the sim book follow it at the next sync', async () => {
    const { ticker, marketId } = await importOne(agent, 0.4);
    await kalshiAdmin('POST', `/markets/${ticker}/price`, { yes: 0.7 });
    const reports = await syncPrices();
    const kalshi = reports.find((r) => r.venue === 'kalshi');
    assert.ok(kalshi && kalshi.error === null && kalshi.quoted >= 1, JSON.stringify(reports));
    const m = await market(marketId);
    assert.equal(m.externalPriceYes, 0.7);
    assert.equal(m.externalBestBid, 0.69);
    assert.equal(m.externalBestAsk, 0.71);
    assert.ok(m.currentPrice > 0.4, `sim price ${m.currentPrice} moved toward 0.7`);
  });

  it('when Kalshi determines then finalizes a market (lifecycle), then it closes, then resolves and settles exactly once', async () => {
    const { deps } = testContext();
    const { ticker, marketId } = await importOne(agent, 0.5);
    const buy = await trade(agent, { market_id: marketId, side: 'yes', amount: 100 });
    assert.equal(buy.body.success, true, JSON.stringify(buy.body));
    const shares = buy.body.shares_bought as number;
    const before = await balanceOf(agent);

    // Determined is provisional (kalshi.md §4): trading stops here, nothing is paid yet.
    await kalshiAdmin('POST', `/markets/${ticker}/lifecycle`, { status: 'determined', result: 'yes' });
    await checkResolutions(deps);
    let m = await market(marketId);
    assert.equal(m.status, 'closed');
    assert.equal(m.outcome, null);
    const late = await trade(agent, { market_id: marketId, side: 'yes', amount: 10 });
    assert.equal(late.body.success, false);

    await kalshiAdmin('POST', `/markets/${ticker}/lifecycle`, { status: 'finalized', result: 'yes' });
    await checkResolutions(deps);
    await checkResolutions(deps);
    m = await market(marketId);
    assert.equal(m.status, 'resolved');
    assert.equal(m.outcome, true);
    assert.ok(m.resolvedAt);
    await waitForSettlement(marketId);
    const after = await balanceOf(agent);
    assert.ok(Math.abs(after - (before + shares)) < 0.011, `paid ${after - before} for ${shares} shares`);
    await checkResolutions(deps);
    // Whatever settlement that check queued for the market has run before the balance is read again.
    await jobsSettled('settlement', (d) => d.marketId === marketId);
    assert.ok(Math.abs((await balanceOf(agent)) - after) < 1e-9, 'paid once');
    assert.equal(
      await deps.models.LedgerEntry.countDocuments({ agentId: agent.agent_id, kind: 'settle' }),
      1,
    );
    await assertAgentConserved(agent.agent_id);
  });

  it('when a legacy payload says "settled" with result no, then it is final: resolved NO and the NO holder paid once per share', async () => {
    const { deps } = testContext();
    const { ticker, marketId } = await importOne(agent, 0.5);
    const buy = await trade(agent, { market_id: marketId, side: 'no', amount: 40 });
    assert.equal(buy.body.success, true, JSON.stringify(buy.body));
    await kalshiAdmin('POST', `/markets/${ticker}/wire`, { mode: 'legacy' });
    await kalshiAdmin('POST', `/markets/${ticker}/lifecycle`, {
      status: 'finalized',
      result: 'no',
      legacy_settled: true,
    });
    await checkResolutions(deps);
    const m = await market(marketId);
    assert.equal(m.status, 'resolved');
    assert.equal(m.outcome, false);
    await waitForSettlement(marketId);
    const position = await deps.models.Position.findOne({ agentId: agent.agent_id, marketId }).lean();
    assert.equal(position!.status, 'settled');
    assert.equal(position!.payoutMicro, buy.body.shares_bought * 1e6);
    await assertAgentConserved(agent.agent_id);
  });
});
