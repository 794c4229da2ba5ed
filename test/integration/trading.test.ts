import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { testContext } from '../support/context.js';
import { agentWithMarket, makeMarket, spend, trade } from '../support/factories.js';
import { api, registerAgent } from '../support/http.js';
import { assertAgentConserved, assertBookMatchesFills } from '../support/invariants.js';

const RESULT_NUMBERS = [
  'shares_bought',
  'shares_sold',
  'shares_requested',
  'cost',
  'new_price',
  'fee_rate_bps',
  'balance',
];

function assertTradeShape(body: Record<string, unknown>) {
  for (const key of [
    'success',
    'trade_id',
    'market_id',
    'side',
    'shares_bought',
    'shares_sold',
    'shares_requested',
    'order_status',
    'fill_status',
    'cost',
    'new_price',
    'fee_rate_bps',
    'balance',
    'position',
    'error',
    'error_code',
    'hint',
    'retryable',
    'warnings',
  ]) {
    assert.ok(key in body, `answer has ${key}`);
  }
  for (const key of RESULT_NUMBERS) assert.equal(typeof body[key], 'number', `${key} is a number`);
  assert.equal(typeof (body.position as { sim_balance: unknown }).sim_balance, 'number');
  assert.ok(Array.isArray(body.warnings));
}

describe('sim trading #integration', () => {
  describe('buys and sells', () => {
    it('when an agent buys 10 $SIM of YES, then cost is 10, sim_balance 9990 and the context fields are stored', async () => {
      const { agent, market } = await agentWithMarket(0.5);
      const res = await trade(agent, {
        market_id: market._id,
        side: 'yes',
        amount: 10,
        shares: 0,
        action: 'buy',
        venue: 'sim',
        order_type: null,
        reasoning: 'cheap',
        source: 'sdk:test',
        skill_slug: 'tester',
        signal_data: { edge: 0.1 },
      });
      assert.equal(res.status, 200);
      assertTradeShape(res.body);
      assert.equal(res.body.success, true);
      assert.equal(res.body.cost, 10);
      assert.equal(res.body.position.sim_balance, 9990);
      assert.equal(res.body.balance, 9990);
      assert.equal(res.body.fill_status, 'filled');
      assert.equal(res.body.order_status, 'matched');
      assert.ok(res.body.shares_bought > 19 && res.body.shares_bought < 20, String(res.body.shares_bought));
      assert.ok(res.body.new_price > 0.5);
      const stored = await testContext().deps.models.Trade.findById(res.body.trade_id).lean();
      assert.equal(stored?.reasoning, 'cheap');
      assert.equal(stored?.source, 'sdk:test');
      assert.equal(stored?.skillSlug, 'tester');
      assert.deepEqual(stored?.signalData, { edge: 0.1 });
      assert.equal(stored?.orderType, 'FAK', 'order_type null means FAK for buys');
      await assertAgentConserved(agent.agent_id);
      await assertBookMatchesFills(market._id);
    });

    it('when a dry run is followed by the same live trade, then both fill at exactly the same shares and price', async () => {
      const { agent, market } = await agentWithMarket(0.37);
      const dry = await trade(agent, { market_id: market._id, side: 'no', amount: 123.45, dry_run: true });
      assert.equal(dry.body.dry_run, true);
      assert.equal(dry.body.trade_id, null);
      const live = await trade(agent, { market_id: market._id, side: 'no', amount: 123.45 });
      assert.equal(live.body.shares_bought, dry.body.shares_bought);
      assert.equal(live.body.new_price, dry.body.new_price);
      assert.equal(live.body.cost, dry.body.cost);
      assert.equal(live.body.balance, dry.body.balance);

      const sellDry = await trade(agent, {
        market_id: market._id,
        side: 'no',
        action: 'sell',
        shares: live.body.shares_bought,
        dry_run: true,
      });
      const sellLive = await trade(agent, {
        market_id: market._id,
        side: 'no',
        action: 'sell',
        shares: live.body.shares_bought,
      });
      assert.equal(sellLive.body.success, true);
      assert.equal(sellLive.body.cost, sellDry.body.cost, 'dry-run proceeds equal live proceeds');
      assert.equal(sellLive.body.shares_sold, live.body.shares_bought);
      assert.ok(sellLive.body.cost <= 123.45, 'buy-then-sell never gains');
      assert.equal(sellLive.body.order_status, 'matched');
      const position = await api()
        .get('/api/sdk/positions?status=all')
        .set('Authorization', `Bearer ${agent.api_key}`);
      assert.equal(position.body.positions[0].status, 'closed');
      await assertAgentConserved(agent.agent_id);
      await assertBookMatchesFills(market._id);
    });

    it('when a dry run is made, then nothing changes', async () => {
      const { agent, market } = await agentWithMarket();
      await trade(agent, { market_id: market._id, side: 'yes', amount: 50, dry_run: true });
      const { models } = testContext().deps;
      assert.equal(await models.Trade.countDocuments({ agentId: agent.agent_id }), 0);
      assert.equal((await models.Market.findById(market._id).lean())!.book.version, 0);
      assert.equal((await models.Agent.findById(agent.agent_id).lean())!.balanceMicro, 10_000_000_000);
    });

    it('when shares are given on a buy, or a buy amount rounds to zero, or a sell has no shares, then 422 with fix', async () => {
      const { agent, market } = await agentWithMarket();
      for (const [body, loc] of [
        [{ market_id: market._id, side: 'yes', amount: 10, shares: 5 }, 'body.shares'],
        [{ market_id: market._id, side: 'yes', amount: 0.004 }, 'body.amount'],
        [{ market_id: market._id, side: 'yes', action: 'sell', shares: 0 }, 'body.shares'],
        [{ market_id: market._id, side: 'maybe', amount: 10 }, 'body.side'],
      ] as const) {
        const res = await trade(agent, body);
        assert.equal(res.status, 422, JSON.stringify(body));
        assert.ok(
          res.body.detail.some((d: { loc: string[] }) => d.loc.join('.') === loc),
          `${loc} in ${JSON.stringify(res.body.detail)}`,
        );
        assert.equal(typeof res.body.fix, 'string');
      }
    });

    it('when the side is upper case, then it is accepted', async () => {
      const { agent, market } = await agentWithMarket();
      const res = await trade(agent, { market_id: market._id, side: 'YES', amount: 1 });
      assert.equal(res.body.success, true);
      assert.equal(res.body.side, 'yes');
    });
  });

  it('when a sim buy is above 500 $SIM, then 422 on amount with a fix, for a dry run too; 500 fills', async () => {
    const { agent, market } = await agentWithMarket();
    for (const dry_run of [false, true]) {
      const res = await trade(agent, { market_id: market._id, side: 'yes', amount: 500.01, dry_run });
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.detail[0].loc, ['body', 'amount']);
      assert.match(res.body.detail[0].msg, /at most 500 \$SIM per buy on sim/);
      assert.match(res.body.fix, /Split the buy/);
    }
    assert.equal(
      (await trade(agent, { market_id: market._id, side: 'yes', amount: 500 })).body.success,
      true,
    );
    await assertAgentConserved(agent.agent_id);
  });

  it('when trades fill, then each answer’s position block is the position right after that trade', async () => {
    const { agent, market } = await agentWithMarket();
    const auth = { Authorization: `Bearer ${agent.api_key}` };
    const steps = [
      { side: 'yes', amount: 20 },
      { side: 'no', amount: 15 },
      { side: 'yes', amount: 5 },
      { side: 'yes', action: 'sell', shares: 10 },
    ];
    for (const step of steps) {
      const res = await trade(agent, { market_id: market._id, ...step });
      assert.equal(res.body.success, true, JSON.stringify(res.body));
      const held = (await api().get('/api/sdk/positions').set(auth)).body.positions.find(
        (p: { market_id: string }) => p.market_id === market._id,
      );
      assert.equal(res.body.position.shares_yes, held.shares_yes, JSON.stringify(step));
      assert.equal(res.body.position.shares_no, held.shares_no, JSON.stringify(step));
      const me = await api().get('/api/sdk/agents/me').set(auth);
      assert.equal(res.body.position.sim_balance, me.body.balance);
    }
  });

  describe('refusals are 200 with success false', () => {
    it('when the buy exceeds the balance, then "Insufficient balance" with amounts, not retryable', async () => {
      const { agent, market } = await agentWithMarket();
      await spend(agent, 9600);
      const res = await trade(agent, { market_id: market._id, side: 'yes', amount: 400.01 });
      assert.equal(res.status, 200);
      assertTradeShape(res.body);
      assert.equal(res.body.success, false);
      assert.match(
        res.body.error,
        /^Insufficient balance: this buy needs 400\.01 \$SIM but the available balance is 400\.00 \$SIM\.$/,
      );
      assert.equal(res.body.error_code, 'insufficient_balance');
      assert.equal(res.body.retryable, false);
      assert.equal(res.body.fill_status, 'failed');
      assert.equal(res.body.cost, 0);
      await assertAgentConserved(agent.agent_id);
    });

    it('when selling more shares than held, then "Insufficient shares to sell" with attempted and available amounts and a hint', async () => {
      const { agent, market } = await agentWithMarket();
      const buy = await trade(agent, { market_id: market._id, side: 'yes', amount: 5 });
      const res = await trade(agent, {
        market_id: market._id,
        side: 'yes',
        action: 'sell',
        shares: buy.body.shares_bought + 1,
      });
      assert.equal(res.body.success, false);
      assert.match(
        res.body.error,
        new RegExp(
          `tried to sell ${(buy.body.shares_bought + 1).toFixed(5)} YES shares but only ${buy.body.shares_bought.toFixed(5)} are available`,
        ),
      );
      assert.equal(res.body.error_code, 'insufficient_shares');
      assert.match(res.body.hint, /stale|side/);
      const wrongSide = await trade(agent, { market_id: market._id, side: 'no', action: 'sell', shares: 1 });
      assert.match(wrongSide.body.error, /only 0\.00000 are available/);
      await assertAgentConserved(agent.agent_id);
    });

    it('when the market id is unknown or external, then "Market not found" with a hint about service UUIDs', async () => {
      const agent = await registerAgent();
      const unknown = await trade(agent, { market_id: randomUUID(), side: 'yes', amount: 1 });
      assert.equal(unknown.status, 200);
      assert.equal(unknown.body.success, false);
      assert.match(unknown.body.error, /^Market not found/);
      assert.equal(unknown.body.error_code, 'market_not_found');
      assertTradeShape(unknown.body);
      const condition = await trade(agent, { market_id: `0x${'ab'.repeat(32)}`, side: 'yes', amount: 1 });
      assert.match(condition.body.hint, /condition id/);
      assert.match(condition.body.hint, /UUID/);
      const ticker = await trade(agent, { market_id: 'KXBTC-26DEC31-T100000', side: 'yes', amount: 1 });
      assert.match(ticker.body.hint, /ticker/);
    });

    it('when the market is resolved, then the trade is refused as resolved', async () => {
      const agent = await registerAgent();
      const market = await makeMarket({ status: 'resolved', outcome: true, resolvedAt: new Date() });
      const res = await trade(agent, { market_id: market._id, side: 'yes', amount: 1 });
      assert.equal(res.body.success, false);
      assert.equal(res.body.error_code, 'market_resolved');
      assert.match(res.body.error, /resolved/);
      await assertAgentConserved(agent.agent_id);
    });

    it('when the agent is suspended, then "Agent is suspended."', async () => {
      const { agent, market } = await agentWithMarket();
      await testContext().deps.models.Agent.updateOne(
        { _id: agent.agent_id },
        { $set: { status: 'suspended' } },
      );
      const res = await trade(agent, { market_id: market._id, side: 'yes', amount: 1 });
      assert.equal(res.body.success, false);
      assert.equal(res.body.error, 'Agent is suspended.');
    });

    it('when a buy spends the whole balance, then the agent is broke and the next buy gets the broke message', async () => {
      const { agent, market } = await agentWithMarket();
      await spend(agent, 9500);
      const all = await trade(agent, { market_id: market._id, side: 'yes', amount: 500 });
      assert.equal(all.body.success, true);
      assert.equal(all.body.position.sim_balance, 0);
      const me = await api().get('/api/sdk/agents/me').set('Authorization', `Bearer ${agent.api_key}`);
      assert.equal(me.body.status, 'broke');
      const next = await trade(agent, { market_id: market._id, side: 'yes', amount: 1 });
      assert.equal(next.body.error, 'Agent balance is zero. Register a new agent to continue trading.');
      assert.equal(next.body.retryable, false);
      const sell = await trade(agent, { market_id: market._id, side: 'yes', action: 'sell', shares: 1 });
      assert.equal(sell.body.success, true, 'a broke agent may still sell what it holds');
      const after = await api().get('/api/sdk/agents/me').set('Authorization', `Bearer ${agent.api_key}`);
      assert.equal(after.body.status, 'unclaimed', 'cash back above zero: no longer broke');
      await assertAgentConserved(agent.agent_id);
    });

    it('when a limit price is worse than the fill, then it is refused; a generous limit fills', async () => {
      const { agent, market } = await agentWithMarket(0.5);
      const tight = await trade(agent, { market_id: market._id, side: 'yes', amount: 100, price: 0.5 });
      assert.equal(tight.body.success, false);
      assert.equal(tight.body.error_code, 'limit_not_met');
      assert.match(tight.body.error, /Limit price not met/);
      const loose = await trade(agent, { market_id: market._id, side: 'yes', amount: 100, price: 0.52 });
      assert.equal(loose.body.success, true);
      const sellTight = await trade(agent, {
        market_id: market._id,
        side: 'yes',
        action: 'sell',
        shares: 10,
        price: 0.6,
      });
      assert.equal(sellTight.body.error_code, 'limit_not_met');
      await assertAgentConserved(agent.agent_id);
      await assertBookMatchesFills(market._id);
    });
  });

  describe('venues', () => {
    it('when the legacy venue "sandbox" or "simmer" is used, then it trades on sim with a deprecation warning', async () => {
      const { agent, market } = await agentWithMarket();
      for (const venue of ['sandbox', 'simmer']) {
        const res = await trade(agent, { market_id: market._id, side: 'yes', amount: 1, venue });
        assert.equal(res.body.success, true);
        assert.equal(res.body.venue, 'sim');
        assert.match(res.body.warnings[0], new RegExp(`venue "${venue}" is deprecated; use "sim"`));
      }
    });

    it('when an unclaimed agent trades on polymarket or kalshi, then 403 with claim_url, detail, error and fix', async () => {
      const { agent, market } = await agentWithMarket();
      for (const venue of ['polymarket', 'kalshi']) {
        const res = await trade(agent, { market_id: market._id, side: 'yes', amount: 1, venue });
        assert.equal(res.status, 403);
        assert.equal(res.body.detail, 'Agent must be claimed before trading');
        assert.equal(res.body.error, res.body.detail);
        assert.equal(res.body.claim_url, `http://localhost:8080/claim/${agent.claim_code}`);
        assert.equal(typeof res.body.fix, 'string');
      }
    });
  });

  it('when an agent reaches its 10th sim trade, then the answer carries a go_live block (and not on the 9th)', async () => {
    const { agent, market } = await agentWithMarket();
    const answers = [];
    for (let i = 0; i < 10; i++)
      answers.push((await trade(agent, { market_id: market._id, side: 'yes', amount: 1 })).body);
    assert.equal(answers[8].go_live, undefined);
    assert.equal(answers[9].go_live.sim_trades, 10);
    assert.ok(
      answers[9].go_live.steps.some(
        (s: { actor: string; url?: string }) => s.actor === 'owner' && s.url?.includes('/claim/'),
      ),
    );
  });

  describe('reads', () => {
    it('GET /api/sdk/trades lists trades newest first with filters, and failed rows only with include_failed', async () => {
      const { agent, market } = await agentWithMarket();
      const other = await makeMarket();
      await trade(agent, { market_id: market._id, side: 'yes', amount: 2 });
      await trade(agent, { market_id: other._id, side: 'no', amount: 3, reasoning: 'why not' });
      await trade(agent, { market_id: market._id, side: 'yes', amount: 2, price: 0.01 });
      const auth = { Authorization: `Bearer ${agent.api_key}` };
      const all = await api().get('/api/sdk/trades').set(auth);
      assert.equal(all.body.total_count, 2);
      assert.equal(all.body.trades[0].market_id, other._id, 'newest first');
      assert.equal(all.body.trades[0].reasoning, 'why not');
      assert.equal(all.body.trades[0].trade_id, all.body.trades[0].id);
      assert.equal(all.body.trades[0].market_source, null);
      assert.equal(all.body.trades[0].cost, 3);
      const withFailed = await api().get('/api/sdk/trades?include_failed=true').set(auth);
      assert.equal(withFailed.body.total_count, 3);
      const failed = withFailed.body.trades.find((t: { status: string }) => t.status === 'rejected');
      assert.equal(failed.failure_category, 'price');
      assert.match(failed.failure_reason, /Limit price not met/);
      const byMarket = await api().get(`/api/sdk/trades?market_id=${other._id}&limit=1&offset=0`).set(auth);
      assert.equal(byMarket.body.total_count, 1);
      const future = await api()
        .get(`/api/sdk/trades?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)
        .set(auth);
      assert.equal(future.body.total_count, 0);
      const bad = await api().get('/api/sdk/trades?limit=500').set(auth);
      assert.equal(bad.status, 422);
    });

    it('GET /api/sdk/positions shows shares, cost basis, value, pnl, sources and a top-level total_pnl', async () => {
      const { agent, market } = await agentWithMarket(0.5);
      await trade(agent, { market_id: market._id, side: 'yes', amount: 100, source: 'sdk:weather' });
      await trade(agent, { market_id: market._id, side: 'no', amount: 10 });
      const res = await api().get('/api/sdk/positions').set('Authorization', `Bearer ${agent.api_key}`);
      assert.equal(res.status, 200);
      const [row] = res.body.positions;
      assert.equal(row.market_id, market._id);
      assert.equal(row.venue, 'sim');
      assert.ok(row.shares_yes > 0 && row.shares_no > 0);
      assert.equal(row.cost_basis, 110);
      assert.deepEqual(row.sources, ['sdk:weather']);
      assert.equal(row.status, 'active');
      assert.equal(typeof res.body.total_pnl, 'number');
      assert.equal(res.body.total_pnl, row.pnl);
      const none = await api()
        .get('/api/sdk/positions?venue=polymarket')
        .set('Authorization', `Bearer ${agent.api_key}`);
      assert.deepEqual(none.body.positions, []);
      const bySource = await api()
        .get('/api/sdk/positions?source=weather')
        .set('Authorization', `Bearer ${agent.api_key}`);
      assert.equal(bySource.body.positions.length, 1);
    });

    it('GET /api/sdk/portfolio answers objects (never null) for concentration and by_source, and a combos array', async () => {
      const { agent, market } = await agentWithMarket();
      await trade(agent, { market_id: market._id, side: 'yes', amount: 40, source: 'sdk:a' });
      const res = await api()
        .get('/api/sdk/portfolio?venue=all')
        .set('Authorization', `Bearer ${agent.api_key}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.sim_balance, 9960);
      assert.equal(typeof res.body.concentration.top_market_pct, 'number');
      // Fractions of the exposure (1 = all of it): the skills' status.py scripts compare them with 0.5
      // and print them with `:.0%` (it was 100, points of percent, printed as "10000%").
      assert.equal(res.body.concentration.top_market_pct, 1);
      assert.equal(res.body.concentration.top_3_markets_pct, 1);
      assert.equal(res.body.by_source['sdk:a'].positions, 1);
      assert.deepEqual(res.body.combos, []);
      assert.equal(res.body.sim.positions_count, 1);
      assert.equal(typeof res.body.pnl_24h, 'number');
    });

    it('GET /api/sdk/markets/{id} answers {market, agent_id}; an unknown or external id is a 404 with hint', async () => {
      const { agent, market } = await agentWithMarket();
      const auth = { Authorization: `Bearer ${agent.api_key}` };
      const res = await api().get(`/api/sdk/markets/${market._id}`).set(auth);
      assert.equal(res.status, 200);
      assert.equal(res.body.agent_id, agent.agent_id);
      assert.equal(res.body.market.id, market._id);
      assert.equal(res.body.market.tick_size, 0.01);
      assert.equal(res.body.market.fee_rate_bps, 0);
      assert.equal(res.body.market.polymarket_token_id, null);
      const missing = await api()
        .get(`/api/sdk/markets/0x${'cd'.repeat(32)}`)
        .set(auth);
      assert.equal(missing.status, 404);
      assert.match(missing.body.hint, /condition id/);
    });

    it('the seeded catalogue has at least 200 sim markets across six categories, events and resolved ones', async () => {
      const { Market } = testContext().deps.models;
      const seeded = await Market.find({ seedKey: { $ne: null } }).lean();
      assert.ok(seeded.length >= 200, String(seeded.length));
      assert.deepEqual([...new Set(seeded.map((m) => m.category))].sort(), [
        'crypto',
        'culture',
        'economics',
        'politics',
        'science',
        'sports',
      ]);
      assert.ok(seeded.filter((m) => m.eventId).length >= 10);
      assert.ok(
        seeded.filter((m) => m.status === 'resolved' && m.resolvedAt && m.outcome !== null).length >= 3,
      );
      const hours = seeded
        .filter((m) => m.status === 'active')
        .map((m) => (m.resolvesAt!.getTime() - Date.now()) / 3600_000);
      assert.ok(
        Math.min(...hours) < 24 && Math.max(...hours) > 24 * 60,
        'resolution spread from hours to months',
      );
    });
  });
});
