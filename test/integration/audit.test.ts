import assert from 'node:assert/strict';
import type { z } from 'zod';
import type { adminEndpoints } from '../../api/endpoints/admin.endpoints.js';
import { appendLedgerEntry, rollForwardAgent } from '../../shared/domains/ledger/ledger.js';
import type { AgentDelta } from '../../shared/domains/ledger/ledger-entry.model.js';
import { accept } from '../../shared/domains/refusal.js';
import { bookState, rollForwardMarket } from '../../shared/domains/markets/market-log.js';
import { positionId } from '../../shared/domains/positions/position.model.js';
import { price } from '../../shared/domains/markets/lmsr.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';

const operator = () => ({ Authorization: `Bearer ${testContext().operatorToken}` });

type AuditBody = z.output<typeof adminEndpoints.audit.response>;
type Difference = AuditBody['differences'][number];

async function audit(query = ''): Promise<AuditBody> {
  const res = await api().get(`/api/admin/audit${query}`).set(operator());
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as AuditBody;
}

/** Appends a ledger entry of `kind` changing the agent's counters by `agent`, and applies it. */
async function credit(agentId: string, kind: string, agent: Partial<AgentDelta>): Promise<string> {
  const { models, clock } = testContext().deps;
  const entryId = `audit-test-${kind}-${agentId}`;
  const appended = await appendLedgerEntry(
    models,
    agentId,
    entryId,
    null,
    () => accept({ kind, agent }),
    clock,
  );
  assert.ok(appended.entry);
  return entryId;
}

const about = (report: { differences: Difference[] }, id: string) =>
  report.differences.filter((d) => d.id === id);

describe('the ledger audit #integration', function () {
  this.timeout(60_000);
  let agents: RegisteredAgent[];
  let markets: Awaited<ReturnType<typeof makeMarket>>[];
  /** The fixture's one sale (agent 0, NO of market 1). */
  let saleId: string;

  before(async () => {
    markets = await Promise.all([makeMarket({ p0: 0.3 }), makeMarket({ p0: 0.6 })]);
    agents = await Promise.all([registerAgent(), registerAgent(), registerAgent()]);
    for (const [a, agent] of agents.entries()) {
      for (const [m, market] of markets.entries()) {
        const buy = await trade(agent, {
          market_id: market._id,
          side: (a + m) % 2 ? 'no' : 'yes',
          amount: 20 + a,
        });
        assert.equal(buy.body.success, true, JSON.stringify(buy.body));
      }
    }
    const bought = await trade(agents[0]!, { market_id: markets[1]!._id, side: 'no', amount: 10 });
    const sold = await trade(agents[0]!, {
      market_id: markets[1]!._id,
      side: 'no',
      action: 'sell',
      shares: Math.floor(bought.body.shares_bought * 50_000) / 100_000,
    });
    assert.equal(sold.body.success, true, JSON.stringify(sold.body));
    saleId = sold.body.trade_id;
    const resolved = await api()
      .post(`/api/admin/markets/${markets[0]!._id}/resolve`)
      .set(operator())
      .send({ outcome: true });
    assert.equal(resolved.body.settlement.state, 'completed');
  });

  it('when trades filled, sold and settled, then the audit recomputes every balance and book and finds no difference', async () => {
    const report = await audit();
    assert.deepEqual(report.differences, []);
    assert.equal(report.ok, true);
    assert.equal(report.truncated, false);
    assert.equal(report.difference_count, 0);
    assert.ok(report.checked.agents >= 3);
    assert.ok(report.checked.positions >= 6);
    assert.ok(report.checked.markets >= 2);
    assert.equal(typeof report.took_ms, 'number');
    // Seven buys and a sale replayed on their books; rounding kept something for the house.
    assert.ok(report.house.fills >= 8, JSON.stringify(report.house));
    assert.ok(report.house.dust_micro > 0, JSON.stringify(report.house));
  });

  it("when a sale's logged proceeds are one micro-unit above its LMSR proceeds rounded down, then the audit reports that fill with the proceeds rounding down gives, and the trades' cash against the book's", async () => {
    const { models } = testContext().deps;
    const fill = (await models.MarketEvent.findById(saleId).lean())!;
    assert.equal(fill.action, 'sell');
    const trades = await models.Trade.find({ marketId: fill.marketId, status: 'filled' }).lean();
    const tradesCash = trades.reduce(
      (sum, t) => sum + (t.action === 'sell' ? -1 : 1) * t.fill!.amountMicro,
      0,
    );
    await models.MarketEvent.updateOne({ _id: saleId }, { $inc: { amountMicro: 1 } });
    try {
      const report = await audit();
      assert.deepEqual(about(report, fill.marketId), [
        {
          kind: 'market',
          id: fill.marketId,
          field: 'trades.amountMicro',
          // The book's net cash (buys paid less sales received) is now one less than the trades say.
          expected: tradesCash - 1,
          actual: tradesCash,
        },
        {
          kind: 'market',
          id: fill.marketId,
          field: `fills[${fill.seq}].amountMicro`,
          expected: fill.amountMicro,
          actual: fill.amountMicro + 1,
        },
      ]);
    } finally {
      await models.MarketEvent.updateOne({ _id: saleId }, { $inc: { amountMicro: -1 } });
    }
    assert.deepEqual((await audit()).differences, []);
  });

  it("when a trade records one micro-unit more than its fill moved, then the audit reports the market's cash against the book's", async () => {
    const { models } = testContext().deps;
    const sale = (await models.Trade.findById(saleId).lean())!;
    await models.Trade.updateOne({ _id: saleId }, { $inc: { 'fill.amountMicro': 1 } });
    try {
      const report = await audit();
      const [difference, ...others] = about(report, sale.marketId);
      assert.deepEqual(others, []);
      assert.equal(difference?.field, 'trades.amountMicro');
      // A sale takes cash out of the book: the trades say one micro-unit more left it.
      assert.equal(difference.actual, (difference.expected as number) - 1);
    } finally {
      await models.Trade.updateOne({ _id: saleId }, { $inc: { 'fill.amountMicro': -1 } });
    }
    assert.deepEqual((await audit()).differences, []);
  });

  it("when an agent's balance, a position's shares or a market's book is changed outside the logs, then that difference is reported with what the log says, until it is put back", async () => {
    const { models } = testContext().deps;
    const agentId = agents[1]!.agent_id;
    const marketId = markets[1]!._id;
    const pid = positionId(agentId, marketId, 'sim');
    const agent = (await models.Agent.findById(agentId).lean())!;
    const position = (await models.Position.findById(pid).lean())!;
    const market = (await models.Market.findById(marketId).lean())!;
    await models.Agent.updateOne({ _id: agentId }, { $inc: { balanceMicro: 1 } });
    await models.Position.updateOne({ _id: pid }, { $inc: { sharesYesMicro: -10 } });
    await models.Market.updateOne({ _id: marketId }, { $inc: { 'book.yesMicro': 10 } });
    try {
      const report = await audit();
      assert.equal(report.ok, false);
      assert.deepEqual(about(report, agentId), [
        {
          kind: 'agent',
          id: agentId,
          field: 'balanceMicro',
          expected: agent.balanceMicro,
          actual: agent.balanceMicro + 1,
        },
      ]);
      assert.deepEqual(about(report, pid), [
        {
          kind: 'position',
          id: pid,
          field: 'sharesYesMicro',
          expected: position.sharesYesMicro,
          actual: position.sharesYesMicro - 10,
        },
      ]);
      assert.deepEqual(about(report, marketId), [
        {
          kind: 'market',
          id: marketId,
          field: 'book.yesMicro',
          expected: market.book.yesMicro,
          actual: market.book.yesMicro + 10,
        },
      ]);
      assert.equal(report.difference_count, 3);
      const capped = await audit('?max_differences=1');
      assert.equal(capped.differences.length, 1);
      assert.equal(capped.difference_count, 3);
      assert.equal(capped.truncated, true);
    } finally {
      await models.Agent.updateOne({ _id: agentId }, { $inc: { balanceMicro: -1 } });
      await models.Position.updateOne({ _id: pid }, { $inc: { sharesYesMicro: 10 } });
      await models.Market.updateOne({ _id: marketId }, { $inc: { 'book.yesMicro': -10 } });
    }
    assert.deepEqual((await audit()).differences, []);
  });

  it("when a book's anchor moves without a logged anchor event, then the audit reports the anchor the first fill was priced at", async () => {
    const { models } = testContext().deps;
    const market = (await models.Market.findById(markets[1]!._id).lean())!;
    await models.Market.updateOne({ _id: market._id }, { $inc: { 'book.q0Yes': 5 } });
    try {
      const report = await audit();
      const moved = about(report, market._id).find((d) => d.field === 'book.q0Yes');
      assert.ok(moved, JSON.stringify(report.differences));
      assert.ok(Math.abs((moved.expected as number) - market.book.q0Yes) < 1e-6);
      assert.equal(moved.actual, market.book.q0Yes + 5);
    } finally {
      await models.Market.updateOne({ _id: market._id }, { $inc: { 'book.q0Yes': -5 } });
    }
    assert.equal((await audit()).ok, true);
  });

  it('when an agent or a market has logged an entry it has not applied yet, then it counts as behind, not as a difference, and agrees once rolled forward', async () => {
    const { models } = testContext().deps;
    const agentId = agents[2]!.agent_id;
    const agent = (await models.Agent.findById(agentId).lean())!;
    // A reservation logged, its apply lost (as after a crash between the two writes): appended, then
    // the agent document put back as it was.
    await credit(agentId, 'reserve', { balanceMicro: -5, reservedMicro: 5 });
    await models.Agent.updateOne(
      { _id: agentId },
      { $inc: { balanceMicro: 5, reservedMicro: -5, ledgerSeq: -1 } },
    );
    // A re-anchoring to where the book already is, likewise logged and not applied.
    const market = (await models.Market.findById(markets[1]!._id).lean())!;
    const now = price(bookState(market), 'yes');
    await models.MarketEvent.collection.insertOne({
      _id: `audit-test-anchor-${market._id}`,
      marketId: market._id,
      seq: market.book.version + 1,
      kind: 'anchor',
      side: null,
      action: null,
      sharesMicro: 0,
      amountMicro: 0,
      priceBefore: now,
      priceAfter: now,
      outcome: null,
      q0Yes: market.book.q0Yes,
      anchorPrice: now,
      at: new Date(),
    } as never);

    const behind = await audit();
    assert.deepEqual(behind.differences, []);
    assert.ok(behind.behind.agents >= 1);
    assert.ok(behind.behind.markets >= 1);

    await rollForwardAgent(models, agentId);
    await rollForwardMarket(models, market._id);
    const after = await audit();
    assert.deepEqual(after.differences, []);
    assert.equal(after.behind.agents, behind.behind.agents - 1);
    assert.equal(after.behind.markets, behind.behind.markets - 1);
    const applied = (await models.Agent.findById(agentId).lean())!;
    assert.equal(applied.reservedMicro, agent.reservedMicro + 5);
  });

  it('when the ledger credits money that no sale or payout explains, then conservation fails even though the agent matches its ledger', async () => {
    const { models } = testContext().deps;
    const agentId = agents[0]!.agent_id;
    const agent = (await models.Agent.findById(agentId).lean())!;
    const entryId = await credit(agentId, 'gift', { balanceMicro: 7 });
    try {
      const report = await audit();
      assert.deepEqual(about(report, agentId), [
        {
          kind: 'agent',
          id: agentId,
          field: 'conservation',
          expected: agent.balanceMicro + agent.reservedMicro,
          actual: agent.balanceMicro + agent.reservedMicro + 7,
        },
      ]);
    } finally {
      await models.LedgerEntry.deleteOne({ _id: entryId });
      await models.Agent.updateOne({ _id: agentId }, { $inc: { balanceMicro: -7, ledgerSeq: -1 } });
    }
    assert.deepEqual((await audit()).differences, []);
  });

  it('when the audit is called without the operator token, then 401', async () => {
    const res = await api().get('/api/admin/audit');
    assert.equal(res.status, 401);
    const agentKey = await api().get('/api/admin/audit').set('Authorization', `Bearer ${agents[0]!.api_key}`);
    assert.equal(agentKey.status, 401);
  });
});
