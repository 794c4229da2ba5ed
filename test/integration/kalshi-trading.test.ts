import assert from 'node:assert/strict';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { boardStanding } from '../../shared/domains/reads/board-ranks.js';
import { remarkLeaderboard } from '../../shared/domains/reads/leaderboard.js';
import { remarkVenueBoards, venueBoard } from '../../shared/domains/reads/venue-boards.js';
import { QUOTE_TTL_SECONDS } from '../../shared/domains/venues/kalshi/kalshi-trade.js';
import { checkResolutions } from '../../shared/domains/venue-sync/check-resolutions.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import {
  ed25519Sign,
  importedKalshiMarket,
  kalshiPosition,
  kalshiTrader,
  quote,
  sentOrders,
  signQuoted,
  submit,
  walletUsdc,
  withKalshiSettings,
  type KalshiTrader,
} from '../support/kalshi-traders.js';
import { asAgent } from '../support/polymarket-traders.js';
import { until } from '../support/until.js';
import { kalshiAdmin } from '../support/venue-emulators.js';

const addressOf = (t: KalshiTrader) => t.wallet.publicKey.toBase58();

/** A quoted buy of `amount` USDC on the market's side, signed by the trader's wallet. */
async function signedBuy(t: KalshiTrader, marketId: string, amount = 10, side = 'yes') {
  const q = await quote(t, { market_id: marketId, side, amount }).expect(200);
  assert.equal(q.body.success, true, q.body.error);
  return {
    quote: q.body,
    body: {
      market_id: marketId,
      side,
      action: 'buy',
      quote_id: q.body.quote_id,
      signed_transaction: signQuoted(q.body.transaction, t.wallet),
    },
  };
}

/**
 * After a buy of 10 YES at 0.51 ($5.10) on a market Kalshi prices at 0.50: every read shows the
 * position in its kalshi bucket, marked at the Kalshi price ($5.00, P&L -0.10).
 */
async function assertKalshiBuckets(t: KalshiTrader, marketId: string) {
  const { models } = testContext().deps;
  await models.Market.updateOne({ _id: marketId }, { $set: { currentPrice: 0.6 } });
  testContext().deps.caches.markets.delete(marketId);
  const positions = await api().get('/api/sdk/positions').set(asAgent(t.agent)).expect(200);
  const row = positions.body.positions.find((p: { market_id: string }) => p.market_id === marketId);
  assert.equal(row.venue, 'kalshi');
  assert.equal(row.shares_yes, 10);
  assert.equal(row.current_value, 5);
  assert.equal(row.pnl, -0.1);
  assert.equal(positions.body.kalshi_pnl, -0.1);

  // The wallet's USDC read from the chain now (not the read cached when the wallet was registered).
  const { env } = testContext().deps;
  const cacheSeconds = env.WALLET_CASH_CACHE_SECONDS;
  env.WALLET_CASH_CACHE_SECONDS = 0;
  let portfolio;
  try {
    portfolio = await api().get('/api/sdk/portfolio?venue=all').set(asAgent(t.agent)).expect(200);
  } finally {
    env.WALLET_CASH_CACHE_SECONDS = cacheSeconds;
  }
  const usdc = await walletUsdc(addressOf(t));
  const pick = (b: Record<string, unknown>) =>
    Object.fromEntries(['balance', 'pnl', 'positions_count', 'total_exposure'].map((k) => [k, b[k]]));
  assert.deepEqual(pick(portfolio.body.kalshi), {
    balance: usdc,
    pnl: -0.1,
    positions_count: 1,
    total_exposure: 5,
  });
  assert.equal(portfolio.body.kalshi.wallet_address, addressOf(t));
  // The human's managed Polymarket wallet holds no pUSD.
  assert.deepEqual(pick(portfolio.body.polymarket), {
    balance: 0,
    pnl: 0,
    positions_count: 0,
    total_exposure: 0,
  });
  const only = await api().get('/api/sdk/portfolio?venue=kalshi').set(asAgent(t.agent)).expect(200);
  assert.equal(only.body.kalshi.total_exposure, 5);
  assert.equal(only.body.polymarket, null);
  assert.equal(only.body.sim, null);

  const briefing = await api().get('/api/sdk/briefing').set(asAgent(t.agent)).expect(200);
  const kalshi = briefing.body.venues.kalshi;
  assert.equal(kalshi.currency, 'USDC');
  assert.equal(kalshi.balance, usdc);
  assert.equal(kalshi.pnl, -0.1);
  assert.equal(kalshi.realized_pnl, 0);
  assert.equal(kalshi.unrealized_pnl, -0.1);
  assert.equal(kalshi.positions_count, 1);
  assert.equal(kalshi.total_exposure, 5);
  assert.ok(Array.isArray(kalshi.positions_needing_attention));
  assert.ok(Array.isArray(kalshi.actions));
  // Nothing held on Polymarket, but the human has a (managed) wallet there: its cash is shown.
  assert.equal(briefing.body.venues.polymarket.positions_count, 0);
  assert.equal(briefing.body.venues.polymarket.balance, 0);
  assert.equal(briefing.body.venues.sim.positions_count, 0);

  const context = await api().get(`/api/sdk/context/${marketId}`).set(asAgent(t.agent)).expect(200);
  assert.equal(context.body.positions.sim, null);
  assert.equal(context.body.positions.polymarket, null);
  const held = context.body.positions.kalshi;
  assert.equal(held.venue, 'kalshi');
  assert.equal(held.side, 'yes');
  assert.equal(held.shares, 10);
  assert.equal(held.cost_basis, 5.1);
  assert.equal(held.current_value, 5);
  assert.equal(held.unrealized_pnl, -0.1);

  await assertCurrenciesApart(t);
}

/**
 * With a sim position beside the Kalshi one, $SIM and dollars are never added: the sim board ranks
 * the sim P&L only (this test asserted the Kalshi -$0.10 in the sim board's $SIM figure before, which
 * was wrong), the Kalshi board ranks the dollars, and the positions' totals are in one currency.
 */
async function assertCurrenciesApart(t: KalshiTrader) {
  const { models } = testContext().deps;
  // Only a Kalshi trade so far: not on the sim board at all (it ranked there at 0 $SIM before).
  const kalshiOnly = (await models.Agent.findById(t.agent.agent_id).lean())!;
  assert.equal((await boardStanding(models, kalshiOnly)).rank, null);
  const simMarket = await makeMarket({ p0: 0.5, b: 300 });
  const simBuy = await trade(t.agent, { market_id: simMarket._id, side: 'yes', amount: 10, venue: 'sim' });
  assert.equal(simBuy.body.success, true, JSON.stringify(simBuy.body));
  const simOnly = await api().get('/api/sdk/positions?venue=sim').set(asAgent(t.agent)).expect(200);
  assert.equal(simOnly.body.pnl_currency, '$SIM');
  assert.equal(simOnly.body.positions.length, 1);
  const simPnl = simOnly.body.total_pnl as number;
  assert.equal(simPnl, simOnly.body.sim_pnl);
  assert.equal(simOnly.body.total_value, simOnly.body.positions[0].current_value);

  const all = await api().get('/api/sdk/positions').set(asAgent(t.agent)).expect(200);
  assert.equal(all.body.positions.length, 2);
  assert.equal(all.body.pnl_currency, 'USDC');
  assert.equal(all.body.total_pnl, -0.1);
  assert.equal(all.body.total_value, 5);
  assert.equal(all.body.sim_pnl, simPnl);
  assert.deepEqual(all.body.pnl_summary.combined, all.body.pnl_summary.kalshi);

  await remarkLeaderboard(models, new Date());
  await remarkVenueBoards(models, new Date());
  const agent = (await models.Agent.findById(t.agent.agent_id).lean())!;
  assert.equal(agent.leaderboardPnlMicro, Math.round(simPnl * 1e6));
  assert.notEqual((await boardStanding(models, agent)).rank, null, 'its sim trade puts it on the sim board');
  const kalshiBoard = await venueBoard(models, 'kalshi', 'all', 500, 0);
  const onKalshi = kalshiBoard.entries.find((e) => e.id === t.agent.agent_id);
  assert.equal(onKalshi?.total_pnl, -0.1);
  assert.equal(kalshiBoard.currency, 'USDC');
}

/** A Kalshi trader that bought 10 YES contracts ($5.10 at 0.5) in a new market, through quote and submit. */
async function boughtTenYes() {
  const t = await kalshiTrader();
  const { marketId, ticker } = await importedKalshiMarket(t.agent, 0.5);
  const { body } = await signedBuy(t, marketId, 5.1);
  const bought = await submit(t, body).expect(200);
  assert.equal(bought.body.shares_bought, 10);
  return { t, marketId, ticker };
}

/** A quote to sell the YES contracts of a resolved market (its redemption), and the submit body signing it. */
async function yesRedemption(t: KalshiTrader, marketId: string, shares = 10) {
  const q = await quote(t, { market_id: marketId, side: 'yes', action: 'sell', shares }).expect(200);
  assert.equal(q.body.success, true, JSON.stringify(q.body));
  const body = {
    market_id: marketId,
    side: 'yes',
    action: 'sell',
    quote_id: q.body.quote_id,
    signed_transaction: signQuoted(q.body.transaction, t.wallet),
  };
  return { q, body };
}

describe('Kalshi trading: quote, client-signed submit, order tracking #integration', function () {
  this.timeout(60_000);

  it('when a buy is quoted, signed with web3.js and submitted, then the order opens, closes with fills and books a position', async () => {
    const t = await kalshiTrader();
    const { marketId } = await importedKalshiMarket(t.agent, 0.4);
    const { models } = testContext().deps;
    await withKalshiSettings({ fill_after_ms: null }, async () => {
      const asked = Date.now();
      const { quote: q, body } = await signedBuy(t, marketId, 10);
      const answered = Date.now();
      // YES ask 0.41: $10 buys 24 whole contracts; the rest is refunded.
      assert.equal(q.price, 0.41);
      assert.equal(q.out_amount, 24);
      assert.equal(q.wallet_address, addressOf(t));
      assert.equal(q.wallet_ownership_verified, false);
      assert.match(q.hint, /\/api\/sdk\/wallet\/solana\/challenge/);
      // Valid for the quote TTL from the moment it was made (some moment while it was asked for).
      const expires = Date.parse(q.expires_at);
      const ttl = QUOTE_TTL_SECONDS * 1000;
      assert.ok(expires >= asked + ttl && expires <= answered + ttl, q.expires_at);

      const submitted = await submit(t, body).expect(200);
      assert.equal(submitted.body.success, true, submitted.body.error);
      assert.equal(submitted.body.fill_status, 'submitted');
      assert.equal(submitted.body.shares_bought, 0);
      const tradeId = submitted.body.trade_id as string;
      const open = (await models.Trade.findById(tradeId).lean())!;
      assert.equal(open.status, 'open');
      assert.equal(open.venue, 'kalshi');
      const [order] = await sentOrders(addressOf(t));
      assert.equal(order!.status, 'open');
      assert.equal(open.venueOrder!.orderId, order!.signature);
      // Listed as open; a cancel is refused (DFlow orders cannot be cancelled) and nothing changes.
      const listed = await api().get('/api/sdk/orders/open').set(asAgent(t.agent)).expect(200);
      assert.deepEqual(
        listed.body.orders.map((o: { order_id: string; venue: string }) => [o.order_id, o.venue]),
        [[order!.signature, 'kalshi']],
      );
      const cancel = await api().delete('/api/sdk/orders').set(asAgent(t.agent)).expect(200);
      assert.equal(cancel.body.success, false);
      assert.deepEqual(cancel.body.canceled, []);
      assert.match(cancel.body.not_canceled[order!.signature!], /kalshi orders cannot be cancelled/);
      assert.equal((await models.Trade.findById(tradeId).lean())!.status, 'open');

      await kalshiAdmin('POST', '/orders/fill-now', { signature: order!.signature });
      const filled = await until(
        () => models.Trade.findById(tradeId).lean(),
        (tr) => tr?.status === 'filled',
      );
      const result = filled!.result as Record<string, unknown>;
      assert.equal(result.shares_bought, 24);
      assert.equal(result.cost, 9.84);
      assert.equal(result.new_price, 0.41);
      assert.equal(result.fill_status, 'filled');
      const position = (await kalshiPosition(t.agent.agent_id, marketId))!;
      assert.equal(position.sharesYesMicro, 24_000_000);
      assert.equal(position.costYesMicro, 9_840_000);
      assert.equal(await models.LedgerEntry.countDocuments({ tradeId }), 1, 'the fill booked once');
      const trades = await api()
        .get(`/api/sdk/trades?market_id=${marketId}`)
        .set(asAgent(t.agent))
        .expect(200);
      assert.equal(trades.body.trades.length, 1);
    });
  });

  it('when the fill comes within the submit, then the answer carries the TradeResult keys of the fill; a sell needs no KYC', async () => {
    const t = await kalshiTrader();
    const { marketId } = await importedKalshiMarket(t.agent, 0.5);
    const { body } = await signedBuy(t, marketId, 5.1);
    const bought = await submit(t, body).expect(200);
    assert.equal(bought.body.success, true, bought.body.error);
    assert.equal(bought.body.fill_status, 'filled');
    assert.equal(bought.body.shares_bought, 10);
    assert.equal(bought.body.cost, 5.1);
    for (const key of ['trade_id', 'market_id', 'side', 'shares_requested', 'order_status', 'new_price'])
      assert.ok(key in bought.body, key);
    await assertKalshiBuckets(t, marketId);

    await kalshiAdmin('DELETE', `/kyc/${addressOf(t)}`);
    const q = await quote(t, { market_id: marketId, side: 'yes', action: 'sell', shares: 4 }).expect(200);
    assert.equal(q.body.success, true, q.body.error);
    const sold = await submit(t, {
      market_id: marketId,
      side: 'yes',
      action: 'sell',
      quote_id: q.body.quote_id,
      signed_transaction: signQuoted(q.body.transaction, t.wallet),
    }).expect(200);
    assert.equal(sold.body.success, true, sold.body.error);
    assert.equal(sold.body.shares_sold, 4);
    // YES bid 0.49.
    assert.equal(sold.body.cost, 1.96);
    const position = (await kalshiPosition(t.agent.agent_id, marketId))!;
    assert.equal(position.sharesYesMicro, 6_000_000);
    assert.equal(position.realizedPnlMicro, 1_960_000 - 2_040_000);
  });

  it('when the same signed transaction is submitted twice, then it is one trade and one order', async () => {
    const t = await kalshiTrader();
    const { marketId } = await importedKalshiMarket(t.agent);
    const { body } = await signedBuy(t, marketId, 10);
    const [a, b] = await Promise.all([submit(t, body).expect(200), submit(t, body).expect(200)]);
    const again = await submit(t, body).expect(200);
    assert.equal(a.body.trade_id, b.body.trade_id);
    assert.equal(a.body.trade_id, again.body.trade_id);
    const { models } = testContext().deps;
    assert.equal(await models.Trade.countDocuments({ agentId: t.agent.agent_id }), 1);
    assert.equal((await sentOrders(addressOf(t))).length, 1);
    await until(
      () => models.Trade.findById(a.body.trade_id).lean(),
      (tr) => tr?.status === 'filled',
    );
    assert.equal((await kalshiPosition(t.agent.agent_id, marketId))!.sharesYesMicro, 24_000_000);
  });

  it('when the quote is past its 5 minutes, then the submit answers "Quote expired or not found" and sends nothing', async () => {
    const t = await kalshiTrader();
    const { marketId } = await importedKalshiMarket(t.agent);
    const { body } = await signedBuy(t, marketId);
    const { deps } = testContext();
    const clock = deps.clock;
    deps.clock = () => new Date(Date.now() + 301_000);
    try {
      const late = await submit(t, body).expect(200);
      assert.equal(late.body.success, false);
      assert.equal(late.body.error, 'Quote expired or not found');
    } finally {
      deps.clock = clock;
    }
    const unknown = await submit(t, { ...body, quote_id: 'no-such-quote' }).expect(200);
    assert.equal(unknown.body.error, 'Quote expired or not found');
    assert.equal((await sentOrders(addressOf(t))).length, 0);
  });

  it('when the market finalizes YES, then the position shows resolved at $1, the winning contracts redeem once through quote/submit and a losing side is refused', async () => {
    const { deps } = testContext();
    const { t, marketId, ticker } = await boughtTenYes();

    await kalshiAdmin('POST', `/markets/${ticker}/lifecycle`, { status: 'finalized', result: 'yes' });
    await checkResolutions(deps);
    const resolved = await api()
      .get('/api/sdk/positions?venue=kalshi&status=resolved')
      .set(asAgent(t.agent))
      .expect(200);
    const row = resolved.body.positions.find((p: { market_id: string }) => p.market_id === marketId);
    assert.equal(row.status, 'resolved');
    assert.equal(row.redeemable, true);
    assert.equal(row.redeemable_side, 'yes');
    assert.equal(row.current_value, 10);
    assert.equal(row.pnl, 4.9);
    const briefing = await api().get('/api/sdk/briefing').set(asAgent(t.agent)).expect(200);
    assert.match(
      briefing.body.venues.kalshi.actions.join(' '),
      /resolved YES: redeem the contracts that pay out/,
    );

    // The losing side and a new buy are refused with what to do instead.
    const losing = await quote(t, { market_id: marketId, side: 'no', action: 'sell', shares: 10 }).expect(
      200,
    );
    assert.equal(losing.body.success, false);
    assert.equal(losing.body.error_code, 'losing_side');
    assert.match(losing.body.error, /resolved YES: NO contracts pay nothing/);
    assert.match(losing.body.fix, /side: "yes", action: "sell"/);
    const buy = await quote(t, { market_id: marketId, side: 'yes', amount: 5 }).expect(200);
    assert.equal(buy.body.error_code, 'market_closed');

    const usdcBefore = await walletUsdc(addressOf(t));
    const { q, body: redeem } = await yesRedemption(t, marketId);
    assert.equal(q.body.price, 1);
    assert.equal(q.body.out_amount, 10);
    const [a, b] = await Promise.all([submit(t, redeem).expect(200), submit(t, redeem).expect(200)]);
    assert.equal(a.body.trade_id, b.body.trade_id);
    const done = await until(
      () => deps.models.Trade.findById(a.body.trade_id).lean(),
      (tr) => tr?.status === 'filled',
    );
    assert.equal((done!.result as Record<string, unknown>).shares_sold, 10);
    assert.equal((done!.result as Record<string, unknown>).cost, 10);
    const again = await submit(t, redeem).expect(200);
    assert.equal(again.body.trade_id, a.body.trade_id);
    assert.equal(
      await deps.models.Trade.countDocuments({ agentId: t.agent.agent_id, action: 'sell' }),
      1,
      'one redemption trade',
    );
    assert.equal(await deps.models.LedgerEntry.countDocuments({ tradeId: a.body.trade_id }), 1);
    assert.equal((await walletUsdc(addressOf(t))) - usdcBefore, 10, 'the emulator paid $1 a contract once');
    const position = (await kalshiPosition(t.agent.agent_id, marketId))!;
    assert.equal(position.sharesYesMicro, 0);
    assert.equal(position.realizedPnlMicro, 10_000_000 - 5_100_000);
    const after = await api()
      .get('/api/sdk/positions?venue=kalshi&status=all')
      .set(asAgent(t.agent))
      .expect(200);
    const closed = after.body.positions.find((p: { market_id: string }) => p.market_id === marketId);
    assert.equal(closed.status, 'closed');
    assert.equal(closed.current_value, 0);
    assert.equal(closed.pnl, 4.9);
  });

  it('when the market finalizes as a 50-50 scalar result, then both sides redeem at their payout (kalshi.md §4): YES contracts at $0.50', async () => {
    const { deps } = testContext();
    const { t, marketId, ticker } = await boughtTenYes();
    await kalshiAdmin('POST', `/markets/${ticker}/lifecycle`, {
      status: 'finalized',
      result: 'scalar',
      settlement_value: 0.5,
    });
    const reports = await checkResolutions(deps);
    assert.ok(reports.find((r) => r.venue === 'kalshi')!.voided >= 1);
    const market = (await deps.models.Market.findById(marketId).lean())!;
    assert.equal(market.status, 'resolved');
    assert.equal(market.outcome, null);
    assert.equal(market.payoutYesMicro, 500_000);
    const resolved = await api()
      .get('/api/sdk/positions?venue=kalshi&status=resolved')
      .set(asAgent(t.agent))
      .expect(200);
    const row = resolved.body.positions.find((p: { market_id: string }) => p.market_id === marketId);
    assert.equal(row.redeemable, true);
    assert.equal(row.redeemable_side, 'yes');
    assert.equal(row.current_value, 5);

    const usdcBefore = await walletUsdc(addressOf(t));
    const { q, body: redeem } = await yesRedemption(t, marketId);
    assert.equal(q.body.price, 0.5);
    assert.equal(q.body.out_amount, 5);
    const sent = await submit(t, redeem).expect(200);
    const done = await until(
      () => deps.models.Trade.findById(sent.body.trade_id).lean(),
      (tr) => tr?.status === 'filled',
    );
    assert.equal(done?.status, 'filled');
    assert.equal((await walletUsdc(addressOf(t))) - usdcBefore, 5, 'the emulator paid $0.50 a contract');
    const buy = await quote(t, { market_id: marketId, side: 'no', amount: 5 }).expect(200);
    assert.equal(buy.body.error_code, 'market_closed');
    assert.match(buy.body.error, /void \(50-50\)/);
  });

  it('when the human registers another Solana wallet after a buy, then the winning contracts are quoted for and redeemed from the wallet that holds them', async () => {
    const { deps } = testContext();
    const { t, marketId, ticker } = await boughtTenYes();
    const next = Keypair.generate().publicKey.toBase58();
    await api()
      .patch('/api/sdk/user/settings')
      .set(asAgent(t.agent))
      .send({ bot_solana_wallet: next })
      .expect(200);
    await kalshiAdmin('POST', `/markets/${ticker}/lifecycle`, { status: 'finalized', result: 'yes' });
    await checkResolutions(deps);

    const usdcBefore = await walletUsdc(addressOf(t));
    const q = await quote(t, { market_id: marketId, side: 'yes', action: 'sell', shares: 10 }).expect(200);
    assert.equal(q.body.success, true, JSON.stringify(q.body));
    assert.equal(q.body.wallet_address, addressOf(t));
    const sold = await submit(t, {
      market_id: marketId,
      side: 'yes',
      action: 'sell',
      quote_id: q.body.quote_id,
      signed_transaction: signQuoted(q.body.transaction, t.wallet),
    }).expect(200);
    assert.equal(sold.body.success, true, JSON.stringify(sold.body));
    const done = await until(
      () => deps.models.Trade.findById(sold.body.trade_id).lean(),
      (tr) => tr?.status === 'filled',
    );
    assert.equal((done!.result as Record<string, unknown>).shares_sold, 10);
    assert.equal((await walletUsdc(addressOf(t))) - usdcBefore, 10, 'paid into the wallet that held them');
    assert.equal((await kalshiPosition(t.agent.agent_id, marketId))!.sharesYesMicro, 0);
  });

  it('when the human registers another Solana wallet after a buy, then a buy from the new wallet is refused with position_in_other_wallet', async () => {
    const t = await kalshiTrader();
    const { marketId } = await importedKalshiMarket(t.agent, 0.5);
    const { body } = await signedBuy(t, marketId, 5.1);
    const bought = await submit(t, body).expect(200);
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    const next = Keypair.generate();
    const nextAddress = next.publicKey.toBase58();
    await api()
      .patch('/api/sdk/user/settings')
      .set(asAgent(t.agent))
      .send({ bot_solana_wallet: nextAddress })
      .expect(200);
    await kalshiAdmin('POST', `/kyc/${nextAddress}`);
    await kalshiAdmin('POST', `/wallets/${nextAddress}/fund`, { usdc: 1000, sol: 1 });

    const q = await quote({ ...t, wallet: next }, { market_id: marketId, side: 'yes', amount: 5 }).expect(
      200,
    );
    assert.equal(q.body.success, false, JSON.stringify(q.body));
    assert.equal(q.body.error_code, 'position_in_other_wallet', JSON.stringify(q.body));
    assert.match(q.body.hint, new RegExp(addressOf(t)));
    assert.equal((await sentOrders(nextAddress)).length, 0);
    const position = (await kalshiPosition(t.agent.agent_id, marketId))!;
    assert.equal(position.holderAddress, addressOf(t));
    assert.equal(position.sharesYesMicro, 10_000_000);
  });

  it('when the quote\'s blockhash has expired, then the submit answers exactly "Quote expired or not found" with the detail in hint', async () => {
    const t = await kalshiTrader();
    const { marketId } = await importedKalshiMarket(t.agent);
    const { body } = await signedBuy(t, marketId);
    await kalshiAdmin('POST', '/blocks/advance', { n: 200 });
    const late = await submit(t, body).expect(200);
    assert.equal(late.body.success, false);
    assert.equal(late.body.error, 'Quote expired or not found');
    assert.match(late.body.hint, /blockhash/i);
    assert.match(late.body.fix, /kalshi\/quote/);
    assert.equal((await sentOrders(addressOf(t))).length, 0);
  });

  it('when the wallet is not the registered one or none is registered, then quote and submit say so', async () => {
    const t = await kalshiTrader();
    const { marketId } = await importedKalshiMarket(t.agent);
    const other = Keypair.generate().publicKey.toBase58();
    const wrong = await quote(t, {
      market_id: marketId,
      side: 'yes',
      amount: 5,
      wallet_address: other,
    }).expect(200);
    assert.equal(wrong.body.success, false);
    assert.equal(wrong.body.error, 'Wallet address does not match');
    assert.match(wrong.body.fix, /bot_solana_wallet/);

    // The wallet changed after the quote: its transaction is not the registered wallet's.
    const { body } = await signedBuy(t, marketId);
    await api()
      .patch('/api/sdk/user/settings')
      .set(asAgent(t.agent))
      .send({ bot_solana_wallet: other })
      .expect(200);
    const changed = await submit(t, body).expect(200);
    assert.equal(changed.body.error, 'Wallet address does not match');

    const bare = await kalshiTrader();
    await api()
      .patch('/api/sdk/user/settings')
      .set(asAgent(bare.agent))
      .send({ bot_solana_wallet: null })
      .expect(200);
    const none = await quote(bare, { market_id: marketId, side: 'yes', amount: 5 }).expect(200);
    assert.equal(none.body.error, 'No Solana wallet linked');
    assert.equal((await sentOrders(addressOf(t))).length, 0);
  });

  it('when the wallet is not KYC-verified, then a buy quote answers KYC_REQUIRED with the Proof link', async () => {
    const t = await kalshiTrader({ kyc: false });
    const { marketId } = await importedKalshiMarket(t.agent);
    const q = await quote(t, { market_id: marketId, side: 'yes', amount: 5 }).expect(200);
    assert.equal(q.body.success, false);
    assert.equal(q.body.error_code, 'KYC_REQUIRED');
    assert.match(q.body.error, /^KYC_REQUIRED/);
    assert.match(q.body.fix, /dflow\.net\/proof\?wallet=/);
    const status = await api()
      .get(`/api/proof/status?wallet=${addressOf(t)}`)
      .expect(200);
    assert.deepEqual(status.body, {
      wallet: addressOf(t),
      verified: false,
      verify_url: `https://dflow.net/proof?wallet=${addressOf(t)}`,
    });
    await kalshiAdmin('POST', `/kyc/${addressOf(t)}`);
    const verified = await api()
      .get(`/api/proof/status?wallet=${addressOf(t)}`)
      .expect(200);
    assert.equal(verified.body.verified, true);
  });

  it('when the transaction is altered after signing, or signed by another key, then it is refused before anything is sent', async () => {
    const t = await kalshiTrader();
    const { marketId } = await importedKalshiMarket(t.agent);
    const { body } = await signedBuy(t, marketId);
    // The memo instruction's data (the order it names) changed after the wallet signed.
    const changed = VersionedTransaction.deserialize(Buffer.from(body.signed_transaction, 'base64'));
    const memo = changed.message.compiledInstructions.at(-1)!;
    memo.data = Uint8Array.from(memo.data, (b, i) => (i === 0 ? b ^ 0x01 : b));
    const altered = await submit(t, {
      ...body,
      signed_transaction: Buffer.from(changed.serialize()).toString('base64'),
    }).expect(200);
    assert.equal(altered.body.success, false);
    assert.equal(altered.body.error_code, 'transaction_mismatch');

    const tx = VersionedTransaction.deserialize(Buffer.from(body.signed_transaction, 'base64'));
    tx.signatures[0] = ed25519Sign(Keypair.generate(), tx.message.serialize());
    const foreign = await submit(t, {
      ...body,
      signed_transaction: Buffer.from(tx.serialize()).toString('base64'),
    }).expect(200);
    assert.equal(foreign.body.success, false);
    assert.equal(foreign.body.error, 'Transaction did not pass signature verification');
    assert.equal((await sentOrders(addressOf(t))).length, 0);
    assert.equal(await testContext().deps.models.Trade.countDocuments({ agentId: t.agent.agent_id }), 0);
  });

  it('when the wallet has no USDC account, then the chain\'s "Invalid account owner" comes back and nothing is booked', async () => {
    const t = await kalshiTrader();
    const { marketId } = await importedKalshiMarket(t.agent);
    const { body } = await signedBuy(t, marketId);
    await kalshiAdmin('DELETE', `/wallets/${addressOf(t)}/usdc-account`);
    const r = await submit(t, body).expect(200);
    assert.equal(r.body.success, false);
    assert.match(r.body.error, /Invalid account owner/);
    assert.equal(await kalshiPosition(t.agent.agent_id, marketId), null);
    const again = await quote(t, { market_id: marketId, side: 'yes', amount: 5 }).expect(200);
    assert.match(again.body.error, /^Invalid account owner/);
  });

  it('when the Solana RPC is down at the submit, then the trade is refused as unavailable and no position is booked', async () => {
    const t = await kalshiTrader();
    const { marketId } = await importedKalshiMarket(t.agent);
    const { body } = await signedBuy(t, marketId);
    await kalshiAdmin('POST', '/faults', { mode: 'unhealthy', path_prefix: '/solana', count: 1 });
    try {
      const r = await submit(t, body).expect(200);
      assert.equal(r.body.success, false);
      assert.equal(r.body.error_code, 'venue_unavailable');
      assert.equal(r.body.retryable, true);
    } finally {
      await kalshiAdmin('DELETE', '/faults');
    }
    assert.equal((await sentOrders(addressOf(t))).length, 0);
    assert.equal(await kalshiPosition(t.agent.agent_id, marketId), null);
  });

  it('when Kalshi is in its maintenance window, then the quote answers route_not_found', async () => {
    const t = await kalshiTrader();
    const { marketId } = await importedKalshiMarket(t.agent);
    await withKalshiSettings({ maintenance: 'on' }, async () => {
      const q = await quote(t, { market_id: marketId, side: 'yes', amount: 5 }).expect(200);
      assert.equal(q.body.success, false);
      assert.equal(q.body.error_code, 'route_not_found');
      assert.match(q.body.fix, /Thursdays 03:00/);
    });
  });

  it('when the order fails with reverts, then the trade is refused and no position is booked', async () => {
    const t = await kalshiTrader();
    const { marketId } = await importedKalshiMarket(t.agent);
    const { body } = await signedBuy(t, marketId);
    await kalshiAdmin('POST', '/orders/script', { outcome: 'fail', count: 1 });
    const r = await submit(t, body).expect(200);
    assert.equal(r.body.success, false);
    assert.equal(r.body.error_code, 'order_failed');
    assert.match(r.body.error, /refunded/);
    const trade = (await testContext().deps.models.Trade.findById(r.body.trade_id).lean())!;
    assert.equal(trade.status, 'rejected');
    assert.equal(await kalshiPosition(t.agent.agent_id, marketId), null);
    assert.equal(await testContext().deps.models.LedgerEntry.countDocuments({ tradeId: r.body.trade_id }), 0);
  });

  it('when the kill switch is on or real trading is off, then the quote is refused', async () => {
    const t = await kalshiTrader();
    const { marketId } = await importedKalshiMarket(t.agent);
    await api()
      .patch('/api/sdk/user/settings')
      .set(asAgent(t.agent))
      .send({ trading_paused: true })
      .expect(200);
    const paused = await quote(t, { market_id: marketId, side: 'yes', amount: 5 }).expect(200);
    assert.equal(paused.body.error_code, 'trading_paused');
    await api()
      .patch('/api/sdk/user/settings')
      .send({ trading_paused: false })
      .set({ Authorization: `Bearer ${t.token}` })
      .expect(200);
    await api()
      .patch('/api/sdk/settings')
      .send({ sdk_real_trading_enabled: false })
      .set({ Authorization: `Bearer ${t.token}` })
      .expect(200);
    const off = await quote(t, { market_id: marketId, side: 'yes', amount: 5 }).expect(200);
    assert.equal(off.body.error_code, 'real_trading_disabled');
  });

  it('when /api/sdk/trade is called with venue kalshi, then a dry run prices from DFlow and a live call points at quote/submit', async () => {
    const t = await kalshiTrader();
    const { marketId } = await importedKalshiMarket(t.agent, 0.4);
    const dry = await api()
      .post('/api/sdk/trade')
      .set(asAgent(t.agent))
      .send({ market_id: marketId, side: 'yes', amount: 10, venue: 'kalshi', dry_run: true })
      .expect(200);
    assert.equal(dry.body.success, true, dry.body.error);
    assert.equal(dry.body.dry_run, true);
    assert.equal(dry.body.shares_bought, 24);
    assert.equal(dry.body.new_price, 0.41);
    const live = await api()
      .post('/api/sdk/trade')
      .set(asAgent(t.agent))
      .send({ market_id: marketId, side: 'yes', amount: 10, venue: 'kalshi' })
      .expect(200);
    assert.equal(live.body.success, false);
    assert.match(live.body.fix, /\/api\/sdk\/trade\/kalshi\/quote.*\/api\/sdk\/trade\/kalshi\/submit/);
  });

  it('when the wallet signs the ownership challenge, then it is registered with proof and quotes no longer ask for it', async () => {
    const t = await kalshiTrader();
    const { marketId } = await importedKalshiMarket(t.agent);
    const fresh = Keypair.generate();
    const address = fresh.publicKey.toBase58();
    const challenge = await api()
      .get(`/api/sdk/wallet/solana/challenge?address=${address}`)
      .set(asAgent(t.agent))
      .expect(200);
    assert.match(challenge.body.message, new RegExp(address));
    const message = new TextEncoder().encode(challenge.body.message);

    const forged = await api()
      .post('/api/sdk/wallet/solana/verify')
      .set(asAgent(t.agent))
      .send({
        address,
        nonce: challenge.body.nonce,
        signature: Buffer.from(ed25519Sign(Keypair.generate(), message)).toString('base64'),
      })
      .expect(400);
    assert.equal(forged.body.error_code, 'signature_mismatch');
    assert.ok(forged.body.fix);

    const again = await api()
      .get(`/api/sdk/wallet/solana/challenge?address=${address}`)
      .set(asAgent(t.agent))
      .expect(200);
    const signed = Buffer.from(ed25519Sign(fresh, new TextEncoder().encode(again.body.message))).toString(
      'base64',
    );
    const ok = await api()
      .post('/api/sdk/wallet/solana/verify')
      .set(asAgent(t.agent))
      .send({ address, nonce: again.body.nonce, signature: signed })
      .expect(200);
    assert.equal(ok.body.ownership_verified, true);
    const settings = await api().get('/api/sdk/user/settings').set(asAgent(t.agent)).expect(200);
    assert.equal(settings.body.solana_wallet_address, address);
    const replayed = await api()
      .post('/api/sdk/wallet/solana/verify')
      .set(asAgent(t.agent))
      .send({ address, nonce: again.body.nonce, signature: signed })
      .expect(400);
    assert.equal(replayed.body.error_code, 'challenge_used');
    assert.ok(replayed.body.fix);

    await kalshiAdmin('POST', `/kyc/${address}`);
    await kalshiAdmin('POST', `/wallets/${address}/fund`, { usdc: 100, sol: 1 });
    const q = await quote({ ...t, wallet: fresh }, { market_id: marketId, side: 'yes', amount: 5 }).expect(
      200,
    );
    assert.equal(q.body.success, true, q.body.error);
    assert.equal(q.body.wallet_ownership_verified, true);
    assert.equal(q.body.hint, null);
  });

  it('when another account has proven a Solana wallet, then registering it as one’s own unproven wallet is refused (409 with a fix); signing for it works', async () => {
    const prove = async (agent: RegisteredAgent, wallet: Keypair) => {
      const address = wallet.publicKey.toBase58();
      const challenge = await api()
        .get(`/api/sdk/wallet/solana/challenge?address=${address}`)
        .set(asAgent(agent))
        .expect(200);
      const signature = ed25519Sign(wallet, new TextEncoder().encode(challenge.body.message));
      return api()
        .post('/api/sdk/wallet/solana/verify')
        .set(asAgent(agent))
        .send({ address, nonce: challenge.body.nonce, signature: Buffer.from(signature).toString('base64') });
    };
    const owner = await registerAgent({ name: 'solana-owner' });
    const squatter = await registerAgent({ name: 'solana-squatter' });
    const wallet = Keypair.generate();
    const address = wallet.publicKey.toBase58();
    assert.equal((await prove(owner, wallet)).status, 200);

    for (const field of ['bot_solana_wallet', 'solana_wallet_address']) {
      const res = await api()
        .patch('/api/sdk/user/settings')
        .set(asAgent(squatter))
        .send({ [field]: address });
      assert.equal(res.status, 409, `${field}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error_code, 'solana_wallet_proven_elsewhere');
      assert.match(res.body.fix, /\/api\/sdk\/wallet\/solana\/challenge/);
    }
    const kept = await api().get('/api/sdk/user/settings').set(asAgent(squatter)).expect(200);
    assert.equal(kept.body.solana_wallet_address, null);
    const owners = await api().get('/api/sdk/user/settings').set(asAgent(owner)).expect(200);
    assert.equal(owners.body.solana_wallet_address, address);

    // Whoever holds the key may prove it too (one wallet can fund several accounts).
    assert.equal((await prove(squatter, wallet)).status, 200);
  });
});
