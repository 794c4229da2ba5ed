import assert from 'node:assert/strict';
import { bookState } from '../../shared/domains/markets/market-log.js';
import { checkResolutions } from '../../shared/domains/venue-sync/check-resolutions.js';
import { expireSimMarkets } from '../../shared/domains/venue-sync/expire-sim-markets.js';
import { importFastMarkets } from '../../shared/domains/venue-sync/import-fast-markets.js';
import { syncExternalPrices } from '../../shared/domains/venue-sync/sync-external-prices.js';
import { price } from '../../shared/domains/markets/lmsr.js';
import { resolveMarket } from '../../shared/domains/markets/resolve-market.js';
import { testContext } from '../support/context.js';
import { assertAgentConserved, assertBookMatchesFills } from '../support/invariants.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { jobsSettled } from '../support/jobs.js';
import { newPolymarketEvent, polymarketAdmin, polymarketEventUrl } from '../support/venue-emulators.js';

let tick = 0;
/** One run of the price-sync job, as the scheduler would enqueue it. */
const syncPrices = () => syncExternalPrices(testContext().deps, `test-${Date.now()}-${tick++}`);

async function importOne(agent: RegisteredAgent, yes = 0.5) {
  const event = await newPolymarketEvent(['Yes', 'No'], [yes]);
  const res = await api()
    .post('/api/sdk/markets/import')
    .set('Authorization', `Bearer ${agent.api_key}`)
    .send({ polymarket_url: polymarketEventUrl(event.event_slug) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { event, conditionId: event.markets[0]!.condition_id, marketId: res.body.market_id as string };
}
const market = (id: string) =>
  testContext()
    .deps.models.Market.findById(id)
    .lean()
    .then((m) => m!);
const agentView = (agent: RegisteredAgent) =>
  api().get('/api/sdk/agents/me').set('Authorization', `Bearer ${agent.api_key}`);

describe('Imported markets follow their venue #integration', () => {
  let agent: RegisteredAgent;
  beforeEach(async () => {
    agent = await registerAgent();
    await polymarketAdmin('DELETE', '/faults');
  });
  after(async () => {
    await polymarketAdmin('DELETE', '/faults');
  });

  it('when the venue price moves, then external_price and the sim book follow it at the next sync', async () => {
    const { conditionId, marketId } = await importOne(agent, 0.5);
    await polymarketAdmin('POST', `/markets/${conditionId}/price`, { yes: 0.7 });
    const [report] = await syncPrices();
    assert.equal(report!.error, null);
    const m = await market(marketId);
    assert.ok(Math.abs(m.externalPriceYes! - 0.7) < 0.006, `external ${m.externalPriceYes}`);
    assert.ok(m.externalSpread !== null && m.externalSpread >= 0);
    assert.ok(Math.abs(m.currentPrice - m.externalPriceYes!) < 1e-6, `book ${m.currentPrice}`);
    assert.equal(m.book.anchorPrice, m.externalPriceYes);

    const view = await api()
      .get(`/api/sdk/markets/${marketId}`)
      .set('Authorization', `Bearer ${agent.api_key}`);
    assert.equal(view.body.market.external_price_yes, m.externalPriceYes);
    assert.ok(Math.abs(view.body.market.divergence - (m.currentPrice - m.externalPriceYes!)) < 1e-6);
  });

  it("when an agent moved the book, then its impact fades over the half-life while the venue's price stays", async () => {
    const { deps } = testContext();
    const { marketId } = await importOne(agent, 0.5);
    const buy = await trade(agent, { market_id: marketId, side: 'yes', amount: 400 });
    assert.equal(buy.body.success, true, JSON.stringify(buy.body));
    const moved = (await market(marketId)).currentPrice;
    // Two sync intervals since the last anchoring (the most that counts).
    const elapsed = 2 * deps.env.EXTERNAL_PRICE_SECONDS;
    await deps.models.Market.updateOne(
      { _id: marketId },
      { $set: { 'book.anchoredAt': new Date(Date.now() - elapsed * 1000) } },
    );
    await syncPrices();
    const m = await market(marketId);
    const logit = (p: number) => Math.log(p / (1 - p));
    const keep = Math.pow(0.5, elapsed / deps.env.REANCHOR_HALF_LIFE_SECONDS);
    const expected =
      1 / (1 + Math.exp(-(logit(m.externalPriceYes!) + (logit(moved) - logit(m.book.anchorPrice!)) * keep)));
    assert.ok(m.currentPrice < moved && m.currentPrice > m.externalPriceYes!, `${moved} → ${m.currentPrice}`);
    assert.ok(Math.abs(m.currentPrice - expected) < 0.002, `book ${m.currentPrice} expected ≈${expected}`);
  });

  it('when the book was re-anchored, then a dry run quotes exactly what the live trade fills', async () => {
    const { conditionId, marketId } = await importOne(agent, 0.4);
    await polymarketAdmin('POST', `/markets/${conditionId}/price`, { yes: 0.6 });
    await syncPrices();
    const dry = await trade(agent, { market_id: marketId, side: 'yes', amount: 25, dry_run: true });
    const live = await trade(agent, { market_id: marketId, side: 'yes', amount: 25 });
    assert.equal(live.body.success, true, JSON.stringify(live.body));
    assert.equal(dry.body.shares_bought, live.body.shares_bought);
    assert.equal(dry.body.new_price, live.body.new_price);
    const m = await market(marketId);
    assert.ok(Math.abs(price(bookState(m), 'yes') - m.currentPrice) < 1e-9);
    await syncPrices();
    await assertBookMatchesFills(marketId);
    await assertAgentConserved(agent.agent_id);
  });

  it('when the venue fails (500s, timeouts, malformed bodies), then errors are counted, last good prices kept, the circuit opens and later closes', async () => {
    const { deps } = testContext();
    const { conditionId, marketId } = await importOne(agent, 0.3);
    await syncPrices();
    const good = (await market(marketId)).externalPriceYes;
    await polymarketAdmin('POST', `/markets/${conditionId}/price`, { yes: 0.8 });
    for (const mode of ['500', 'malformed', 'timeout']) {
      await polymarketAdmin('POST', '/faults', { mode, path_prefix: '/clob', hang_ms: 3000 });
      const [report] = await syncPrices();
      assert.ok(report!.error, `${mode}: error reported`);
      assert.equal((await market(marketId)).externalPriceYes, good, `${mode}: last good price kept`);
      await polymarketAdmin('DELETE', '/faults');
    }
    await polymarketAdmin('POST', '/faults', { mode: '500', path_prefix: '/clob' });
    // Enough failing syncs to open the circuit. When it opened is not visible from here: the fault
    // syncs above already count (no success came between them), a sync may send more than one
    // request, and once the 1 s cool-down passes a sync's trial fails and re-opens it. So the read
    // below may find it open or, past a cool-down, half_open (CI saw both); either means it opened,
    // and closing after the cool-down is checked further down.
    for (let i = 0; i < deps.env.VENUE_BREAKER_FAILURES; i++) await syncPrices();
    const venues = await api()
      .get('/api/admin/venues')
      .set('Authorization', `Bearer ${testContext().operatorToken}`);
    assert.equal(venues.status, 200);
    const clob = venues.body.venues
      .find((v: { venue: string }) => v.venue === 'polymarket')
      .hosts.find((h: { base_url: string }) => h.base_url.endsWith('/clob'));
    assert.ok(clob.consecutive_failures >= deps.env.VENUE_BREAKER_FAILURES, JSON.stringify(clob));
    assert.ok(['open', 'half_open'].includes(clob.circuit), JSON.stringify(clob));
    assert.ok(clob.last_error);
    const metrics = await deps.metrics.registry.getSingleMetricAsString('venue_requests_total');
    assert.match(metrics, /outcome="server_error"/);
    assert.match(metrics, /outcome="schema"/);

    await polymarketAdmin('DELETE', '/faults');
    await new Promise((r) => setTimeout(r, deps.env.VENUE_BREAKER_COOLDOWN_MS + 100));
    const [report] = await syncPrices();
    assert.equal(report!.error, null);
    assert.ok(Math.abs((await market(marketId)).externalPriceYes! - 0.8) < 0.006);
    const after = await api()
      .get('/api/admin/venues')
      .set('Authorization', `Bearer ${testContext().operatorToken}`);
    const clobAfter = after.body.venues
      .find((v: { venue: string }) => v.venue === 'polymarket')
      .hosts.find((h: { base_url: string }) => h.base_url.endsWith('/clob'));
    assert.equal(clobAfter.circuit, 'closed');
  });

  it('when the venue resolves a market, then it resolves here and positions are paid once, however often the check runs', async () => {
    const { deps } = testContext();
    const { conditionId, marketId } = await importOne(agent, 0.5);
    const buy = await trade(agent, { market_id: marketId, side: 'yes', amount: 100 });
    assert.equal(buy.body.success, true, JSON.stringify(buy.body));
    const shares = buy.body.shares_bought as number;
    const balanceBefore = (await agentView(agent)).body.balance as number;
    await polymarketAdmin('POST', `/markets/${conditionId}/resolve`, { outcome: 'yes' });
    await checkResolutions(deps);
    await checkResolutions(deps);
    const m = await market(marketId);
    assert.equal(m.status, 'resolved');
    assert.equal(m.outcome, true);
    assert.ok(m.resolvedAt);
    // Settlement runs on the workers: wait for the payout.
    let balance = balanceBefore;
    for (let i = 0; i < 100 && balance === balanceBefore; i++) {
      await new Promise((r) => setTimeout(r, 50));
      balance = (await agentView(agent)).body.balance;
    }
    assert.ok(
      Math.abs(balance - (balanceBefore + shares)) < 0.011,
      `paid ${balance - balanceBefore} for ${shares} shares`,
    );
    await checkResolutions(deps);
    // Whatever settlement that check queued for the market has run before the balance is read again.
    await jobsSettled('settlement', (d) => d.marketId === marketId);
    assert.ok(Math.abs((await agentView(agent)).body.balance - balance) < 1e-9, 'paid once');
    const entries = await deps.models.LedgerEntry.countDocuments({ agentId: agent.agent_id, kind: 'settle' });
    assert.equal(entries, 1);
    const late = await trade(agent, { market_id: marketId, side: 'yes', amount: 10 });
    assert.equal(late.body.success, false);
  });

  it('when a worker died between resolving a market and enqueueing its settlement, then the next check pays it', async () => {
    const { deps } = testContext();
    const { conditionId, marketId } = await importOne(agent, 0.5);
    const buy = await trade(agent, { market_id: marketId, side: 'no', amount: 50 });
    assert.equal(buy.body.success, true, JSON.stringify(buy.body));
    await polymarketAdmin('POST', `/markets/${conditionId}/resolve`, { outcome: 'no' });
    // The crash: resolved on the log, no settlement job.
    await resolveMarket(deps.models, marketId, false, deps.clock);
    assert.equal((await market(marketId)).settledAt, null);
    await checkResolutions(deps);
    let settled: Date | null | undefined = null;
    for (let i = 0; i < 100 && !settled; i++) {
      await new Promise((r) => setTimeout(r, 50));
      settled = (await market(marketId)).settledAt;
    }
    assert.ok(settled, 'settled');
    await assertAgentConserved(agent.agent_id);
    const position = await deps.models.Position.findOne({ agentId: agent.agent_id, marketId }).lean();
    assert.equal(position!.status, 'settled');
    assert.equal(position!.payoutMicro, buy.body.shares_bought * 1e6);
  });

  it('when the venue stops trading a market, then trading stops here with a refusal', async () => {
    const { conditionId, marketId } = await importOne(agent, 0.5);
    await polymarketAdmin('POST', `/markets/${conditionId}/close`);
    await checkResolutions(testContext().deps);
    const m = await market(marketId);
    assert.equal(m.status, 'closed');
    const res = await trade(agent, { market_id: marketId, side: 'yes', amount: 10 });
    assert.equal(res.body.success, false);
    assert.match(res.body.error, /closed/i);
  });

  it('when the fast-market job runs, then the live windows are listed by fast-markets and roll with the clock', async () => {
    const { deps } = testContext();
    await importFastMarkets(deps);
    const res = await api()
      .get('/api/sdk/fast-markets?limit=100')
      .set('Authorization', `Bearer ${agent.api_key}`);
    assert.equal(res.status, 200);
    const poly = res.body.markets.filter((m: { import_source: string }) => m.import_source === 'polymarket');
    assert.ok(poly.length >= 6, `fast markets: ${poly.length}`);
    assert.ok(poly.some((m: { is_live_now: boolean }) => m.is_live_now));
    for (const m of poly) {
      assert.equal(typeof m.opens_at, 'string');
      assert.ok(['5m', '15m'].includes(m.window));
      assert.match(m.polymarket_token_id, /^\d+$/);
    }
    const before = new Set(poly.map((m: { id: string }) => m.id));
    // Fifteen minutes later on both clocks, the venue's and ours.
    await polymarketAdmin('POST', '/clock', { advance_ms: 15 * 60_000 });
    try {
      await importFastMarkets({ ...deps, clock: () => new Date(Date.now() + 15 * 60_000) });
      const all = await deps.models.Market.find(
        { importSource: 'polymarket', tags: 'fast' },
        { _id: 1 },
      ).lean();
      assert.ok(
        all.some((m) => !before.has(m._id)),
        'new windows imported',
      );
    } finally {
      await polymarketAdmin('POST', '/clock', { advance_ms: -15 * 60_000 });
    }
  });

  it('when a sim catalogue market passes resolves_at, then trades are refused naming the time and it waits closed', async () => {
    const past = new Date(Date.now() - 60_000);
    const m = await makeMarket({ resolvesAt: past });
    const res = await trade(agent, { market_id: m._id, side: 'yes', amount: 10 });
    assert.equal(res.body.success, false);
    assert.match(res.body.error, new RegExp(past.toISOString().slice(0, 16)));
    const { closed } = await expireSimMarkets(testContext().deps);
    assert.ok(closed >= 1);
    assert.equal((await market(m._id)).status, 'closed');
  });
});
