import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { resolveMarket } from '../../shared/domains/markets/resolve-market.js';
import { QueueClient } from '../../shared/infra/queue/queue-client.js';
import { testContext } from '../support/context.js';
import { runWorkerProcess } from '../support/worker-process.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent } from '../support/http.js';
import { asUser, claim, tokenFor } from '../support/users.js';
import { kalshiAdmin, newPolymarketEvent, polymarketAdmin } from '../support/venue-emulators.js';
import {
  importedKalshiMarket,
  kalshiPosition,
  kalshiTrader,
  quote,
  sentOrders,
  signQuoted,
} from '../support/kalshi-traders.js';
import { kalshiTradeId, kalshiVenueOrder } from '../../shared/domains/venues/kalshi/kalshi-trade.js';
import { parseWireTransaction, transactionId } from '../../shared/domains/venues/dflow/solana-transaction.js';
import { assertAgentConserved, assertBookMatchesFills } from '../support/invariants.js';

/**
 * Kills a worker right after every single write of one trade: each restarted worker resumes the job,
 * performs exactly one more write and dies, until the trade is finished.
 */
async function crashThroughTrade(body: {
  agentId: string;
  marketId: string;
  action: 'buy' | 'sell';
  side: 'yes' | 'no';
  amountMicro: number;
  sharesMicro: number;
}) {
  const ctx = testContext();
  const prefix = `${ctx.env.QUEUE_PREFIX}-crash-${randomUUID().slice(0, 8)}`;
  const queues = new QueueClient(ctx.deps.redis, prefix, ctx.deps.infra);
  const tradeId = randomUUID();
  await ctx.deps.models.Trade.create({ _id: tradeId, venue: 'sim', status: 'pending', ...body });
  await queues.enqueue('execute-trade', { tradeId });
  const finished = async () => {
    const t = await ctx.deps.models.Trade.findById(tradeId, { status: 1 }).lean();
    const job = await queues.queues.trades.getJob(`execute-trade-${tradeId}`);
    return t?.status === 'filled' && (await job?.getState()) === 'completed';
  };
  let crashes = 0;
  try {
    for (let i = 0; i < 40 && (await runWorkerProcess(prefix, 1, finished)) === 'killed'; i++) crashes++;
    if (!(await finished())) await runWorkerProcess(prefix, null, finished);
  } finally {
    await Promise.all(Object.values(queues.queues).map((q) => q.obliterate({ force: true })));
    await queues.close();
  }
  return { tradeId, crashes };
}

/**
 * Runs a real-venue trade's job on a worker of its own that is SIGKILLed after `killAfter` writes
 * (`between` looks at the world then), and then on one that takes it to its end (filled).
 */
async function killedAfterRelay(
  tradeId: string,
  killAfter: number,
  venueEnv: Record<string, string>,
  between?: () => Promise<void>,
) {
  const ctx = testContext();
  const prefix = `${ctx.env.QUEUE_PREFIX}-relay-${randomUUID().slice(0, 8)}`;
  const queues = new QueueClient(ctx.deps.redis, prefix, ctx.deps.infra);
  await queues.enqueue('execute-trade', { tradeId });
  const finished = async () => {
    const t = await ctx.deps.models.Trade.findById(tradeId, { status: 1 }).lean();
    const job = await queues.queues.trades.getJob(`execute-trade-${tradeId}`);
    return t?.status === 'filled' && (await job?.getState()) === 'completed';
  };
  try {
    assert.equal(await runWorkerProcess(prefix, killAfter, finished, 'trades', venueEnv), 'killed');
    await between?.();
    await runWorkerProcess(prefix, null, finished, 'trades', venueEnv);
  } finally {
    await Promise.all(Object.values(queues.queues).map((q) => q.obliterate({ force: true })));
    await queues.close();
  }
}

describe('crash recovery: a worker SIGKILLed between any two writes #integration', function () {
  this.timeout(300_000);

  it('when a buy is interrupted after every write, then it is applied exactly once', async () => {
    const agent = await registerAgent();
    const market = await makeMarket({ p0: 0.42 });
    const { tradeId, crashes } = await crashThroughTrade({
      agentId: agent.agent_id,
      marketId: market._id,
      action: 'buy',
      side: 'yes',
      amountMicro: 25_000_000,
      sharesMicro: 0,
    });
    const { models } = testContext().deps;
    assert.equal(
      crashes,
      9,
      'a buy makes 9 writes: claim, reserve (entry, agent), fill (event, book), settle (entry, position, agent), finish',
    );
    const t = (await models.Trade.findById(tradeId).lean())!;
    assert.equal(t.status, 'filled');
    assert.deepEqual(
      (await models.LedgerEntry.find({ tradeId }).sort({ seq: 1 }).lean()).map((e) => e._id),
      [`${tradeId}-reserve`, `${tradeId}-fill`],
    );
    assert.equal(await models.MarketEvent.countDocuments({ _id: tradeId }), 1);
    const agentDoc = (await models.Agent.findById(agent.agent_id).lean())!;
    assert.equal(agentDoc.balanceMicro, 10_000_000_000 - 25_000_000);
    assert.equal(agentDoc.tradesCount, 1);
    await assertAgentConserved(agent.agent_id);
    await assertBookMatchesFills(market._id);
  });

  it('when a sell is interrupted after every write, then it is applied exactly once', async () => {
    const agent = await registerAgent();
    const market = await makeMarket({ p0: 0.63 });
    const buy = await trade(agent, { market_id: market._id, side: 'no', amount: 40 });
    const sharesMicro = Math.round(buy.body.shares_bought * 1e6);
    const { tradeId, crashes } = await crashThroughTrade({
      agentId: agent.agent_id,
      marketId: market._id,
      action: 'sell',
      side: 'no',
      amountMicro: 0,
      sharesMicro,
    });
    const { models } = testContext().deps;
    assert.equal(
      crashes,
      10,
      'a sell makes 10 writes: claim, reserve (entry, position, agent), fill (event, book), settle (entry, position, agent), finish',
    );
    const t = (await models.Trade.findById(tradeId).lean())!;
    assert.equal(t.status, 'filled');
    assert.equal(t.fill!.sharesMicro, sharesMicro);
    assert.equal(await models.LedgerEntry.countDocuments({ tradeId }), 2);
    const position = (await models.Position.findOne({ agentId: agent.agent_id }).lean())!;
    assert.equal(position.sharesNoMicro, 0);
    assert.equal(position.status, 'closed');
    const agentDoc = (await models.Agent.findById(agent.agent_id).lean())!;
    assert.equal(agentDoc.balanceMicro, 10_000_000_000 - 40_000_000 + t.fill!.amountMicro);
    await assertAgentConserved(agent.agent_id);
    await assertBookMatchesFills(market._id);
  });

  // A group commit (group-commit.ts) writes: claim, reserve entries, fill events, settle entries,
  // positions, agents, markets, trades. Killed after each of them, the trades still happen once.
  for (let killAfter = 1; killAfter <= 8; killAfter++) {
    it(`when a batch of trades is killed after its write ${killAfter} of 8, then each trade is applied exactly once`, async () => {
      const ctx = testContext();
      const { models } = ctx.deps;
      const [a, b, c] = await Promise.all([registerAgent(), registerAgent(), registerAgent()]);
      const [m1, m2] = await Promise.all([makeMarket({ p0: 0.4 }), makeMarket({ p0: 0.7 })]);
      const held = await trade(c, { market_id: m2._id, side: 'yes', amount: 30 });
      assert.equal(held.body.success, true, JSON.stringify(held.body));
      const heldMicro = Math.round(held.body.shares_bought * 1e6);
      // Chains on agent a and on market m1; a sell; a buy the book refuses after its reservation.
      const orders = [
        { agentId: a.agent_id, marketId: m1._id, action: 'buy', side: 'yes', amountMicro: 20_000_000 },
        { agentId: b.agent_id, marketId: m1._id, action: 'buy', side: 'no', amountMicro: 15_000_000 },
        { agentId: a.agent_id, marketId: m2._id, action: 'buy', side: 'no', amountMicro: 10_000_000 },
        {
          agentId: c.agent_id,
          marketId: m2._id,
          action: 'sell',
          side: 'yes',
          sharesMicro: Math.floor(heldMicro / 2),
        },
        {
          agentId: b.agent_id,
          marketId: m2._id,
          action: 'buy',
          side: 'yes',
          amountMicro: 5_000_000,
          limitPrice: 0.01,
        },
      ] as const;
      const prefix = `${ctx.env.QUEUE_PREFIX}-batch-${randomUUID().slice(0, 8)}`;
      const queues = new QueueClient(ctx.deps.redis, prefix, ctx.deps.infra);
      const ids: string[] = [];
      for (const o of orders) {
        const id = randomUUID();
        ids.push(id);
        await models.Trade.create({
          amountMicro: 0,
          sharesMicro: 0,
          ...o,
          _id: id,
          venue: 'sim',
          status: 'pending',
        });
        await queues.enqueue('execute-trade', { tradeId: id });
      }
      const finished = async () => {
        const ts = await models.Trade.find({ _id: { $in: ids } }, { status: 1 }).lean();
        const states = await Promise.all(
          ids.map(async (id) => (await queues.queues.trades.getJob(`execute-trade-${id}`))?.getState()),
        );
        return (
          ts.every((t) => t.status === 'filled' || t.status === 'rejected') &&
          states.every((st) => st === 'completed')
        );
      };
      // The worker holds the batch open long enough to take all five trades together.
      const gather = { TRADE_BATCH_WAIT_MS: '500' };
      try {
        assert.equal(await runWorkerProcess(prefix, killAfter, finished, 'trades', gather), 'killed');
        await runWorkerProcess(prefix, null, finished, 'trades', gather);
      } finally {
        await Promise.all(Object.values(queues.queues).map((q) => q.obliterate({ force: true })));
        await queues.close();
      }
      const trades = await models.Trade.find({ _id: { $in: ids } }).lean();
      const claims = new Set(trades.map((t) => t.claimId));
      assert.equal(claims.size, 1, 'the five trades were claimed together, as one batch');
      assert.ok([...claims][0], 'by a group commit');
      const byId = new Map(trades.map((t) => [t._id, t]));
      assert.deepEqual(
        ids.map((id) => byId.get(id)!.status),
        ['filled', 'filled', 'filled', 'filled', 'rejected'],
      );
      assert.equal(byId.get(ids[3]!)!.fill!.sharesMicro, Math.floor(heldMicro / 2));
      for (const id of ids) {
        const entries = await models.LedgerEntry.find({ tradeId: id }).lean();
        assert.deepEqual(
          entries.map((e) => e._id).sort(),
          id === ids[4] ? [`${id}-release`, `${id}-reserve`] : [`${id}-fill`, `${id}-reserve`],
        );
        assert.equal(await models.MarketEvent.countDocuments({ _id: id }), id === ids[4] ? 0 : 1);
      }
      for (const agent of [a, b, c]) await assertAgentConserved(agent.agent_id);
      for (const market of [m1, m2]) await assertBookMatchesFills(market._id);
      const agentA = (await models.Agent.findById(a.agent_id).lean())!;
      assert.equal(agentA.balanceMicro, 10_000_000_000 - 30_000_000);
      assert.equal(agentA.tradesCount, 2);
    });
  }

  it('when a worker is killed right after relaying a Polymarket order, then the retried job finds it and books it once', async () => {
    const ctx = testContext();
    const { models } = ctx.deps;
    const agent = await registerAgent();
    const token = tokenFor(`user-${randomUUID()}`);
    await claim(token, agent.claim_code).expect(200);
    // The claim gives the human a managed wallet: the service signs its orders.
    const wallet = await api().get('/api/sdk/settings').set(asUser(token)).expect(200);
    const address = wallet.body.wallet_address as string;
    assert.match(address, /^0x[0-9a-fA-F]{40}$/);
    await polymarketAdmin('POST', `/wallets/${address}/fund`, { pusd: 100 });
    await polymarketAdmin('POST', `/wallets/${address}/approve`);
    const event = await newPolymarketEvent(['Yes', 'No'], [0.4, 0.6]);
    const imported = await api()
      .post('/api/sdk/markets/import')
      .set('Authorization', `Bearer ${agent.api_key}`)
      .send({ polymarket_url: `https://polymarket.com/market/${event.markets[0]!.slug}` })
      .expect(200);
    const market = (await models.Market.findById(imported.body.market_id).lean())!;
    const tradeId = randomUUID();
    await models.Trade.create({
      _id: tradeId,
      agentId: agent.agent_id,
      marketId: market._id,
      venue: 'polymarket',
      side: 'yes',
      action: 'buy',
      amountMicro: 8_000_000,
      sharesMicro: 0,
      status: 'pending',
      ownerKey: `user:${(await models.Agent.findById(agent.agent_id).lean())!.claimedBy}`,
      venueOrder: {
        signer: 'managed',
        orderType: 'FAK',
        tokenId: market.venueRef!.yesTokenId!,
        negRisk: false,
        tickSize: market.tickSize,
        price: 0.5,
      },
    });
    // Writes: the claim, the signed order recorded, the relay; killed right after the relay.
    await killedAfterRelay(tradeId, 3, {
      // The managed wallet's approvals are read from the chain before its first order.
      POLYGON_RPC_URL: ctx.polymarket.rpcUrl,
      POLYMARKET_GAMMA_URL: ctx.polymarket.gammaUrl,
      POLYMARKET_CLOB_URL: ctx.polymarket.clobUrl,
      POLYMARKET_DATA_URL: ctx.polymarket.dataUrl,
    });
    const orders = await polymarketAdmin<{ id: string }[]>('GET', `/clob/orders?owner=${address}`);
    assert.equal(orders.length, 1, 'one order reached the venue');
    const t = (await models.Trade.findById(tradeId).lean())!;
    assert.equal(t.status, 'filled');
    assert.equal(t.venueOrder!.orderId, orders[0]!.id);
    assert.equal(await models.LedgerEntry.countDocuments({ tradeId }), 1, 'the match booked once');
    const held = await polymarketAdmin<{ tokens: Record<string, number | string> }>(
      'GET',
      `/wallets/${address}`,
    );
    const position = (await models.Position.findOne({
      agentId: agent.agent_id,
      venue: 'polymarket',
    }).lean())!;
    assert.equal(
      position.sharesYesMicro,
      Math.round(Number(held.tokens[market.venueRef!.yesTokenId!]) * 1e6),
    );
  });

  it('when a worker is killed between sending a Kalshi transaction and tracking its order, then the order is followed to its end and booked once', async () => {
    const ctx = testContext();
    const { models } = ctx.deps;
    const trader = await kalshiTrader();
    const address = trader.wallet.publicKey.toBase58();
    const { marketId } = await importedKalshiMarket(trader.agent);
    const q = await quote(trader, { market_id: marketId, side: 'yes', amount: 10 }).expect(200);
    assert.equal(q.body.success, true, q.body.error);
    // The trade as the submit records it: the signed transaction, its signature as the order id.
    const signed = signQuoted(q.body.transaction, trader.wallet);
    const tx = parseWireTransaction(signed)!;
    const tradeId = kalshiTradeId(transactionId(tx));
    await models.Trade.create({
      _id: tradeId,
      agentId: trader.agent.agent_id,
      marketId,
      venue: 'kalshi',
      side: 'yes',
      action: 'buy',
      amountMicro: 10_000_000,
      sharesMicro: 0,
      status: 'pending',
      orderType: 'async',
      ownerKey: `user:${(await models.Agent.findById(trader.agent.agent_id).lean())!.claimedBy}`,
      venueOrder: kalshiVenueOrder((await models.KalshiQuote.findById(q.body.quote_id).lean())!, tx, signed),
    });
    // Writes: the claim, the send to the Solana RPC; killed right after the send, before any tracking.
    await killedAfterRelay(
      tradeId,
      2,
      {
        KALSHI_BASE_URL: ctx.kalshi.kalshiUrl,
        DFLOW_TRADE_API_URL: ctx.kalshi.dflowTradeUrl,
        DFLOW_METADATA_API_URL: ctx.kalshi.dflowMetadataUrl,
        DFLOW_PROOF_API_URL: ctx.kalshi.proofUrl,
        SOLANA_RPC_URL: ctx.kalshi.rpcUrl,
      },
      async () =>
        assert.equal(
          (await sentOrders(address)).length,
          1,
          'the transaction reached the chain before the kill',
        ),
    );
    const orders = await sentOrders(address);
    assert.equal(orders.length, 1, 'one order on DFlow');
    assert.equal(orders[0]!.status, 'closed');
    const t = (await models.Trade.findById(tradeId).lean())!;
    assert.equal(t.status, 'filled');
    assert.equal(t.venueOrder!.orderId, orders[0]!.signature);
    assert.equal(await models.LedgerEntry.countDocuments({ tradeId }), 1, 'the fill booked once');
    const held = await kalshiAdmin<{ token_accounts: { mint: string; amount: string }[] }>(
      'GET',
      `/wallets/${address}`,
    );
    const outcome = held.token_accounts.find((a) => a.mint === t.venueOrder!.tokenId)!;
    const position = (await kalshiPosition(trader.agent.agent_id, marketId))!;
    assert.equal(position.sharesYesMicro, Number(outcome.amount));
    assert.equal(position.sharesYesMicro, 24_000_000);
  });

  it('when a settlement is interrupted after every write, then each position is paid exactly once', async () => {
    const ctx = testContext();
    const { models } = ctx.deps;
    const market = await makeMarket({ p0: 0.5 });
    const [yes, no] = await Promise.all([registerAgent(), registerAgent()]);
    const buys = [
      await trade(yes, { market_id: market._id, side: 'yes', amount: 40 }),
      await trade(no, { market_id: market._id, side: 'no', amount: 30 }),
    ];
    for (const b of buys) assert.equal(b.body.success, true, JSON.stringify(b.body));
    await resolveMarket(models, market._id, true, ctx.deps.clock);

    const prefix = `${ctx.env.QUEUE_PREFIX}-crash-${randomUUID().slice(0, 8)}`;
    const queues = new QueueClient(ctx.deps.redis, prefix, ctx.deps.infra);
    await queues.enqueue('settle-market', { marketId: market._id });
    const finished = async () => {
      const m = await models.Market.findById(market._id, { settledAt: 1 }).lean();
      const job = await queues.queues.settlement.getJob(`settle-market-${market._id}`);
      return Boolean(m?.settledAt) && (await job?.getState()) === 'completed';
    };
    let crashes = 0;
    try {
      for (let i = 0; i < 40 && (await runWorkerProcess(prefix, 1, finished, 'settlement')) === 'killed'; i++)
        crashes++;
      if (!(await finished())) await runWorkerProcess(prefix, null, finished, 'settlement');
    } finally {
      await Promise.all(Object.values(queues.queues).map((q) => q.obliterate({ force: true })));
      await queues.close();
    }
    assert.ok(crashes >= 2, `settlement writes interrupted: ${crashes}`);
    for (const agent of [yes, no]) {
      assert.equal(await models.LedgerEntry.countDocuments({ agentId: agent.agent_id, kind: 'settle' }), 1);
      await assertAgentConserved(agent.agent_id);
    }
    const winner = (await models.Position.findOne({ agentId: yes.agent_id, marketId: market._id }).lean())!;
    assert.equal(winner.payoutMicro, Math.round(buys[0]!.body.shares_bought * 1e6));
    const loser = (await models.Position.findOne({ agentId: no.agent_id, marketId: market._id }).lean())!;
    assert.equal(loser.payoutMicro, 0);
  });
});
