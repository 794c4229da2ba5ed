import assert from 'node:assert/strict';
import { markedPositions, openOn } from '../../shared/domains/reads/leaderboard.js';
import { remarkVenueBoards, venueBoard } from '../../shared/domains/reads/venue-boards.js';
import { recountTallies, tallyAgents } from '../../shared/domains/reads/venue-tallies.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent } from '../support/http.js';
import { asAgent, externalTrader, importedMarket, signedBuy } from '../support/polymarket-traders.js';

interface Entry {
  id: string;
  total_pnl: number;
  pnl_percent: number;
  trades_count: number;
  rank: number;
}

/** The agent's entry on a venue's board, paging through it whole (a full run has many traders). */
async function entryOf(venue: string, agentId: string): Promise<Entry | undefined> {
  for (let offset = 0; ; offset += 500) {
    const res = await api().get(`/api/leaderboard/${venue}?limit=500&offset=${offset}`).expect(200);
    const hit = (res.body.entries as Entry[]).find((e) => e.id === agentId);
    if (hit || res.body.entries.length < 500) return hit;
  }
}

describe('venue leaderboards as read models #integration', () => {
  it('when a claimed agent buys on Polymarket, then after the re-mark it ranks on the pUSD board by realised + marked P&L, and its row follows the price', async () => {
    const { models } = testContext().deps;
    const trader = await externalTrader();
    const market = await importedMarket(trader.agent);
    const bought = await signedBuy(trader, market, 10);
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    await remarkVenueBoards(models, new Date());

    const res = await api().get('/api/leaderboard/polymarket?limit=1').expect(200);
    assert.equal(res.body.currency, 'pUSD');
    assert.equal(typeof res.body.marked_at, 'string');
    assert.ok(res.body.total_count >= 1);
    const entry = await entryOf('polymarket', trader.agent.agent_id);
    assert.ok(entry, 'ranked on the polymarket board');
    const portfolio = await api()
      .get('/api/sdk/portfolio?venue=polymarket')
      .set(asAgent(trader.agent))
      .expect(200);
    assert.equal(entry.total_pnl, portfolio.body.polymarket.pnl, 'the same P&L as the portfolio’s bucket');
    assert.equal(entry.trades_count, 1);
    assert.equal(
      entry.pnl_percent,
      Math.round((entry.total_pnl / bought.body.cost) * 1e4) / 100,
      'of what its buys cost',
    );
    assert.equal(await entryOf('kalshi', trader.agent.agent_id), undefined, 'not on another venue');
    assert.equal(
      (await api().get('/api/leaderboard/kalshi').expect(200)).body.currency,
      'USDC',
      'Kalshi’s board is in USDC',
    );

    // The venue's price moves: the board follows at the next re-mark, not before.
    const before = entry.total_pnl;
    await models.Market.updateOne({ _id: market.marketId }, { $set: { externalPriceYes: 0.9 } });
    try {
      assert.equal(
        (await entryOf('polymarket', trader.agent.agent_id))!.total_pnl,
        before,
        'read, not computed',
      );
      await remarkVenueBoards(models, new Date());
      const moved = await entryOf('polymarket', trader.agent.agent_id);
      assert.ok(moved!.total_pnl > before, `${moved!.total_pnl} > ${before}`);
    } finally {
      await models.Market.updateOne({ _id: market.marketId }, { $set: { externalPriceYes: 0.55 } });
    }
  });

  it('when a real-venue trader is no longer claimed, then the re-mark takes it off that board; sim boards rank unclaimed agents', async () => {
    const { models } = testContext().deps;
    const trader = await externalTrader();
    const market = await importedMarket(trader.agent);
    assert.equal((await signedBuy(trader, market, 5)).body.success, true);
    const paper = await registerAgent();
    const bought = await trade(paper, { market_id: (await makeMarket())._id, side: 'yes', amount: 5 });
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    await remarkVenueBoards(models, new Date());
    assert.ok(await entryOf('polymarket', trader.agent.agent_id));
    assert.ok(await entryOf('sim', paper.agent_id), 'an unclaimed agent ranks on sim');

    const claimedBy = (await models.Agent.findById(trader.agent.agent_id).lean())!.claimedBy;
    await models.Agent.updateOne({ _id: trader.agent.agent_id }, { $set: { claimedBy: null } });
    try {
      const done = await remarkVenueBoards(models, new Date());
      assert.ok(done.polymarket!.removed >= 1);
      assert.equal(await entryOf('polymarket', trader.agent.agent_id), undefined);
    } finally {
      await models.Agent.updateOne({ _id: trader.agent.agent_id }, { $set: { claimedBy } });
    }
    await remarkVenueBoards(models, new Date());
    assert.ok(await entryOf('polymarket', trader.agent.agent_id), 'claimed again: back on the board');
  });

  it('when the boards are re-marked twice without change, then nothing is rewritten, and a page is ranked best first', async () => {
    const { models } = testContext().deps;
    await remarkVenueBoards(models, new Date());
    const again = await remarkVenueBoards(models, new Date());
    for (const venue of ['sim', 'polymarket', 'kalshi']) assert.equal(again[venue]!.changed, 0, venue);
    const page = await venueBoard(models, 'sim', 'all', 50, 0);
    const pnls = page.entries.map((e) => e.total_pnl);
    assert.deepEqual(
      pnls,
      [...pnls].sort((a, b) => b - a),
    );
    assert.deepEqual(
      page.entries.map((e) => e.rank),
      page.entries.map((_, i) => i + 1),
    );
  });

  it('when the re-mark job hands over sim marks it made for the main board, then the boards are the ones a re-mark marking by itself writes', async () => {
    const { models } = testContext().deps;
    const [a, b] = [await registerAgent(), await registerAgent()];
    const m = await makeMarket({ p0: 0.4 });
    await trade(a, { market_id: m._id, side: 'yes', amount: 200 });
    await trade(b, { market_id: m._id, side: 'no', amount: 50 });
    await trade(a, { market_id: m._id, action: 'sell', side: 'yes', shares: 100 });
    const at = new Date();
    const shared = await remarkVenueBoards(models, at, undefined, {
      sim: await markedPositions(models, openOn('sim')),
    });
    assert.ok(shared.sim!.ranked >= 2);
    const rows = await models.VenueStanding.find({ venue: 'sim', agentId: { $in: [a.agent_id, b.agent_id] } })
      .sort({ agentId: 1 })
      .lean();
    assert.equal(rows.length, 2);
    // The same instant marked by itself: every row the same, none written or removed.
    const alone = await remarkVenueBoards(models, at);
    assert.deepEqual(alone.sim, { ranked: shared.sim!.ranked, changed: 0, removed: 0 });
    const again = await models.VenueStanding.find({
      venue: 'sim',
      agentId: { $in: [a.agent_id, b.agent_id] },
    })
      .sort({ agentId: 1 })
      .lean();
    assert.deepEqual(again, rows);
    const seller = rows.find((r) => r.agentId === a.agent_id)!;
    assert.equal(seller.tradesCount, 2);
    assert.equal(seller.spentMicro, 200_000_000);
  });

  it('when only one agent traded since the last count, then only that agent is counted again, and the boards equal ones counted from scratch', async () => {
    const { models } = testContext().deps;
    const [a, b] = [await registerAgent(), await registerAgent()];
    const m = await makeMarket({ p0: 0.5 });
    await trade(a, { market_id: m._id, side: 'yes', amount: 40 });
    await trade(b, { market_id: m._id, side: 'no', amount: 30 });
    const ours = async () =>
      (await tallyAgents(models)).filter((t) => t._id === a.agent_id || t._id === b.agent_id);
    const now = new Date();
    await remarkVenueBoards(models, now);
    // Counted, nothing in flight, the ledgers still: nobody is counted again.
    assert.deepEqual(await recountTallies(models, await ours()), { counted: 0, written: 0 });

    await trade(a, { market_id: m._id, action: 'sell', side: 'yes', shares: 20 });
    const moved = await recountTallies(models, await ours());
    assert.deepEqual(moved, { counted: 1, written: 1 }, 'the seller alone, its sim tally changed');
    const tally = (await models.VenueTally.findById(`sim:${a.agent_id}`).lean())!;
    assert.equal(tally.tradesCount, 2);
    assert.equal(tally.spentMicro, 40_000_000);
    const position = (await models.Position.findById(`${a.agent_id}:${m._id}:sim`).lean())!;
    assert.equal(tally.realizedMicro, position.realizedPnlMicro);

    // A trade whose ledger entry is applied but whose record is not yet filled (the worker between
    // the two writes): counted without it, and counted again at the next run, ledger unmoved.
    await models.Trade.updateOne(
      { agentId: b.agent_id, status: 'filled' },
      { $set: { status: 'executing' } },
    );
    await models.Agent.updateOne({ _id: b.agent_id }, { $set: { talliedSeq: null } });
    assert.deepEqual(await recountTallies(models, await ours()), { counted: 1, written: 1 });
    assert.equal(
      await models.VenueTally.findById(`sim:${b.agent_id}`).lean(),
      null,
      'no filled trade: no tally',
    );
    await models.Trade.updateOne(
      { agentId: b.agent_id, status: 'executing' },
      { $set: { status: 'filled' } },
    );
    assert.deepEqual(await recountTallies(models, await ours()), { counted: 1, written: 1 });
    assert.equal((await models.VenueTally.findById(`sim:${b.agent_id}`).lean())!.tradesCount, 1);
    assert.deepEqual(await recountTallies(models, await ours()), { counted: 0, written: 0 });
    await remarkVenueBoards(models, now);

    // Every tally dropped and every agent counted afresh: the same boards, nothing rewritten.
    const kept = await models.VenueStanding.find({}).sort({ _id: 1 }).lean();
    await models.VenueTally.deleteMany({});
    await models.Agent.updateMany({}, { $set: { talliedSeq: null } });
    const fresh = await remarkVenueBoards(models, now);
    for (const venue of ['sim', 'polymarket', 'kalshi']) assert.equal(fresh[venue]!.changed, 0, venue);
    assert.deepEqual(await models.VenueStanding.find({}).sort({ _id: 1 }).lean(), kept);
  });
});
