import assert from 'node:assert/strict';
import { Side } from '@polymarket/clob-client-v2';
import { Wallet } from 'ethers';
import { limitOrderAmounts } from '../../shared/domains/venues/polymarket/orders/order-amounts.js';
import { signOrder, ZERO_BYTES32 } from '../../shared/domains/venues/polymarket/orders/order-eip712.js';
import { clobCredentialsFor } from '../../shared/domains/venues/polymarket/clob-credentials.js';
import { managedSigner } from '../../shared/domains/wallets/managed-wallet.js';
import { syncVenueOrders } from '../../shared/domains/trading/venue-orders.js';
import { testContext } from '../support/context.js';
import { api, registerAgent } from '../support/http.js';
import {
  asAgent,
  claimedWithRealTrading,
  externalTrader,
  importedMarket,
  managedTrader,
  polymarketTrade as trade,
  restingBuy,
  signedBuy,
  signedSell,
} from '../support/polymarket-traders.js';
import { asUser } from '../support/users.js';
import { polymarketAdmin } from '../support/venue-emulators.js';

/** The late after-trade-fill job of a trade once a worker finished it (its return value), or null after 10 s. */
async function eventuallyCompleted(name: 'after-trade-fill', tradeId: string) {
  const { deps } = testContext();
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const job = await deps.queues.findJob(name, { tradeId, late: true });
    if (job && (await job.getState()) === 'completed') return job.returnvalue as { filled: boolean };
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

describe('Trading on Polymarket (emulated CLOB) #integration', function () {
  this.timeout(60_000);

  it('when a claimed agent buys with an order signed by the official client, then it fills and shows as a polymarket position', async () => {
    const t = await externalTrader();
    const m = await importedMarket(t.agent);
    const res = await signedBuy(t, m);
    assert.equal(res.body.success, true, JSON.stringify(res.body));
    assert.equal(res.body.order_status, 'matched');
    // Matched on the CLOB, settling on chain (polymarket-settlement.test.ts follows it to the end).
    assert.equal(res.body.fill_status, 'unconfirmed');
    assert.ok(res.body.shares_bought > 0);
    assert.ok(res.body.cost > 0 && res.body.cost <= 10);
    assert.match(res.body.order_id, /^0x[0-9a-f]{64}$/);
    const positions = await api()
      .get('/api/sdk/positions?venue=polymarket')
      .set(asAgent(t.agent))
      .expect(200);
    const row = positions.body.positions.find((p: { market_id: string }) => p.market_id === m.marketId);
    assert.ok(row, JSON.stringify(positions.body));
    assert.equal(row.venue, 'polymarket');
    // At a price below 1, a buy gets more shares than it pays; the venue's ledger holds exactly them.
    assert.ok(res.body.shares_bought > res.body.cost, JSON.stringify(res.body));
    const venue = await polymarketAdmin<{ tokens: Record<string, number | string> }>(
      'GET',
      `/wallets/${t.wallet.address}`,
    );
    assert.equal(Number(venue.tokens[m.yes]), res.body.shares_bought, JSON.stringify(venue));
    assert.equal(row.shares_yes, res.body.shares_bought, JSON.stringify(row));
    const portfolio = await api().get('/api/sdk/portfolio').set(asAgent(t.agent)).expect(200);
    assert.equal(portfolio.body.polymarket.positions_count, 1, JSON.stringify(portfolio.body));
    assert.ok(portfolio.body.polymarket.total_exposure > 0);
  });

  it('when a resting bid is looked up as the market-maker skill does, then its row carries the trade_id trade() answered and its skill_slug, and that id cancels it', async () => {
    const t = await managedTrader();
    const m = await importedMarket(t.agent);
    const bid = await trade(t.agent, {
      market_id: m.marketId,
      side: 'yes',
      amount: 10,
      price: 0.05,
      order_type: 'GTC',
      source: 'sdk:market-maker',
      skill_slug: 'polymarket-market-maker',
    }).expect(200);
    assert.equal(bid.body.order_status, 'live', JSON.stringify(bid.body));
    // The service signed it: the order is named by the trade id (the skill looks its trade_id up
    // among the open rows' order_id), the CLOB's own id is venue_order_id.
    assert.equal(bid.body.order_id, bid.body.trade_id, JSON.stringify(bid.body));
    assert.match(bid.body.venue_order_id, /^0x[0-9a-f]{64}$/, JSON.stringify(bid.body));
    const onClob = await polymarketAdmin<{ id: string }[]>('GET', `/clob/orders?owner=${t.address}`);
    assert.deepEqual(
      onClob.map((o) => o.id),
      [bid.body.venue_order_id],
    );
    const open = await api().get('/api/sdk/orders/open').set(asAgent(t.agent)).expect(200);
    const row = open.body.orders.find((o: { trade_id: string }) => o.trade_id === bid.body.trade_id);
    assert.ok(row, JSON.stringify(open.body));
    assert.equal(row.order_id, bid.body.order_id);
    assert.equal(row.venue_order_id, bid.body.venue_order_id);
    // fast-loop and fast-scaler cancel only the open orders whose source or skill_slug is theirs.
    assert.equal(row.skill_slug, 'polymarket-market-maker');
    assert.equal(row.source, 'sdk:market-maker');
    // The skill cancels by the trade_id it kept (client.cancel_order → DELETE /api/sdk/orders/{id}).
    const canceled = await api()
      .delete(`/api/sdk/orders/${bid.body.trade_id}`)
      .set(asAgent(t.agent))
      .expect(200);
    assert.deepEqual(canceled.body.canceled, [bid.body.order_id]);
    const after = await api().get('/api/sdk/orders/open').set(asAgent(t.agent)).expect(200);
    assert.equal(after.body.count, 0);
  });

  it('when a GTC sell rests, then it is listed as open and a cancel closes it', async () => {
    const t = await externalTrader();
    const m = await importedMarket(t.agent);
    const buy = await t.clob.createMarketOrder({ tokenID: m.yes, amount: 20, side: Side.BUY, price: 0.6 });
    const bought = await trade(t.agent, {
      market_id: m.marketId,
      side: 'yes',
      amount: 20,
      signed_order: buy,
    }).expect(200);
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    const size = Math.floor(bought.body.shares_bought);
    const resting = await signedSell(t, m, size, 0.95);
    assert.equal(resting.status, 200, JSON.stringify(resting.body));
    assert.equal(resting.body.success, true, JSON.stringify(resting.body));
    assert.equal(resting.body.order_status, 'live');
    assert.equal(resting.body.fill_status, 'submitted');
    const open = await api().get('/api/sdk/orders/open').set(asAgent(t.agent)).expect(200);
    assert.equal(open.body.count, 1);
    assert.equal(open.body.orders[0].order_id, resting.body.order_id);
    // The wallet signed it and the client cancels it on the CLOB itself: named by the venue's id.
    assert.match(resting.body.order_id, /^0x[0-9a-f]{64}$/);
    assert.equal(resting.body.venue_order_id, resting.body.order_id);
    assert.equal(open.body.orders[0].venue_order_id, resting.body.order_id);
    assert.equal(open.body.orders[0].trade_type, 'sell');
    const canceled = await api()
      .delete(`/api/sdk/orders/${resting.body.order_id}`)
      .set(asAgent(t.agent))
      .expect(200);
    assert.deepEqual(canceled.body.canceled, [resting.body.order_id]);
    const after = await api().get('/api/sdk/orders/open').set(asAgent(t.agent)).expect(200);
    assert.equal(after.body.count, 0);
    const stored = await testContext().deps.models.Trade.findById(resting.body.trade_id).lean();
    assert.equal(stored!.status, 'canceled');
    // Nothing matched: the stored answer (replayed to a resend) is a zero fill, not an empty `filled`.
    const answer = stored!.result as {
      success: boolean;
      fill_status: string;
      error_code: string;
      cost: number;
    };
    assert.deepEqual(
      [answer.success, answer.fill_status, answer.error_code, answer.cost],
      [false, 'failed', 'order_canceled', 0],
      JSON.stringify(answer),
    );
  });

  it('when the signed order is not the trade asked for, then it is refused with a fix and nothing is sent', async () => {
    const t = await externalTrader();
    const m = await importedMarket(t.agent);
    const good = await t.clob.createMarketOrder({ tokenID: m.yes, amount: 10, side: Side.BUY, price: 0.6 });
    const stranger = Wallet.createRandom();
    const [amounts] = [limitOrderAmounts('BUY', 10, 0.6, 0.01)];
    const strangers = await signOrder(
      stranger,
      {
        salt: '1',
        maker: stranger.address,
        signer: stranger.address,
        tokenId: m.yes,
        makerAmount: '10000000',
        takerAmount: amounts.takerAmount,
        side: 'BUY',
        signatureType: 0,
        timestamp: String(Date.now()),
        expiration: '0',
        metadata: ZERO_BYTES32,
        builder: ZERO_BYTES32,
      },
      false,
    );
    const cases: [string, Record<string, unknown>, string][] = [
      ['tampered amount', { ...good, makerAmount: '9000000' }, 'signed_order_mismatch'],
      ['wrong token', { ...good, tokenId: m.no }, 'signed_order_mismatch'],
      ['tampered after signing', { ...good, takerAmount: '99000000' }, 'invalid_signature'],
      ['another wallet', { ...strangers }, 'wallet_mismatch'],
      [
        'a V1 order',
        { ...good, taker: '0x0000000000000000000000000000000000000000', nonce: '0', feeRateBps: '0' },
        'order_version_mismatch',
      ],
    ];
    for (const [name, signed, code] of cases) {
      const res = await trade(t.agent, {
        market_id: m.marketId,
        side: 'yes',
        amount: 10,
        signed_order: signed,
      }).expect(200);
      assert.equal(res.body.success, false, name);
      assert.equal(res.body.error_code, code, `${name}: ${JSON.stringify(res.body)}`);
      assert.ok(res.body.hint, `${name} has a fix`);
    }
    const missing = await trade(t.agent, { market_id: m.marketId, side: 'yes', amount: 10 }).expect(200);
    assert.equal(missing.body.error_code, 'signed_order_required');
  });

  it('when the owner has a managed wallet, then the agent buys without signing anything', async () => {
    const { agent, token } = await claimedWithRealTrading();
    const managed = await api().post('/api/sdk/wallet/managed').set(asUser(token)).send({});
    assert.ok([200, 201].includes(managed.status), JSON.stringify(managed.body));
    const address = managed.body.wallet_address as string;
    await polymarketAdmin('POST', `/wallets/${address}/fund`, { pusd: 500 });
    await polymarketAdmin('POST', `/wallets/${address}/approve`);
    const m = await importedMarket(agent);
    const res = await trade(agent, { market_id: m.marketId, side: 'no', amount: 12 }).expect(200);
    assert.equal(res.body.success, true, JSON.stringify(res.body));
    assert.equal(res.body.fill_status, 'unconfirmed', 'matched, settling on chain');
    assert.ok(res.body.shares_bought > 0);
    const { deps } = testContext();
    const stored = await deps.models.Trade.findById(res.body.trade_id).lean();
    assert.equal(stored!.venueOrder!.signer, 'managed');
    assert.equal(
      (stored!.venueOrder!.signed as { maker: string }).maker.toLowerCase(),
      address.toLowerCase(),
    );
    // The key that signed, and the CLOB secret derived with it, are nowhere in clear in the database.
    const userId = (await deps.models.Agent.findById(agent.agent_id).lean())!.claimedBy!;
    const key = (await managedSigner(deps, userId))!.privateKey.slice(2).toLowerCase();
    const creds = (await clobCredentialsFor(deps, { kind: 'user', id: userId }))!;
    for (const name of Object.keys(deps.models) as (keyof typeof deps.models)[]) {
      const dump = JSON.stringify(await deps.models[name].collection.find({}).toArray()).toLowerCase();
      assert.ok(!dump.includes(key), `the private key in clear in ${name}`);
      assert.ok(!dump.includes(creds.secret.toLowerCase()), `the CLOB secret in clear in ${name}`);
      assert.ok(!dump.includes(creds.passphrase.toLowerCase()), `the CLOB passphrase in clear in ${name}`);
    }
  });

  it('when the CLOB fails a few times, then the order is retried as the same order and placed once', async () => {
    const t = await managedTrader();
    const m = await importedMarket(t.agent);
    await polymarketAdmin('POST', '/faults', { mode: '500', count: 3, path_prefix: '/clob/order' });
    try {
      const res = await trade(t.agent, { market_id: m.marketId, side: 'yes', amount: 6 }).expect(200);
      assert.equal(res.body.success, true, JSON.stringify(res.body));
      assert.equal(res.body.fill_status, 'unconfirmed', 'matched, settling on chain');
    } finally {
      await polymarketAdmin('DELETE', '/faults');
    }
    const orders = await polymarketAdmin<unknown[]>('GET', `/clob/orders?owner=${t.address}`);
    assert.equal(orders.length, 1, 'one order reached the venue');
  });

  it('when the CLOB is down past the deadline, then the answer is submitted, and the order is placed once it is back', async function () {
    this.timeout(90_000);
    const t = await managedTrader();
    const m = await importedMarket(t.agent);
    const { deps } = testContext();
    const waited = deps.env.TRADE_WAIT_MS;
    deps.env.TRADE_WAIT_MS = 3000;
    // Orders fail; the book and order reads still answer.
    await polymarketAdmin('POST', '/faults', { mode: '500', path_prefix: '/clob/order' });
    let tradeId: string;
    try {
      const res = await trade(t.agent, { market_id: m.marketId, side: 'yes', amount: 6 }).expect(200);
      assert.equal(res.body.success, true, JSON.stringify(res.body));
      assert.equal(res.body.fill_status, 'submitted', 'not failed: the order may still be placed');
      tradeId = res.body.trade_id;
    } finally {
      deps.env.TRADE_WAIT_MS = waited;
      await polymarketAdmin('DELETE', '/faults');
    }
    // The job keeps retrying the same order; with the CLOB back it goes through, once.
    for (let i = 0; i < 60; i++) {
      const stored = await deps.models.Trade.findById(tradeId, { status: 1 }).lean();
      if (stored?.status === 'filled') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const stored = (await deps.models.Trade.findById(tradeId).lean())!;
    assert.equal(stored.status, 'filled');
    const orders = await polymarketAdmin<unknown[]>('GET', `/clob/orders?owner=${t.address}`);
    assert.equal(orders.length, 1, 'one order reached the venue');
    assert.equal(await deps.models.LedgerEntry.countDocuments({ tradeId }), 1);
  });

  it('when a GTC buy rests and the venue fills it later, then the order sync books the fill and closes the trade', async () => {
    const t = await managedTrader();
    const m = await importedMarket(t.agent);
    const res = await restingBuy(t.agent, m).expect(200);
    assert.equal(res.body.success, true, JSON.stringify(res.body));
    assert.equal(res.body.order_status, 'live');
    assert.equal(res.body.cost, 0);
    const { deps } = testContext();
    await polymarketAdmin('POST', `/clob/orders/${res.body.venue_order_id}/cross`, { size: 20 });
    await syncVenueOrders(deps);
    let stored = (await deps.models.Trade.findById(res.body.trade_id).lean())!;
    assert.equal(stored.status, 'open', 'partly matched: still working');
    assert.equal(stored.venueOrder!.matchedSharesMicro, 20_000_000);
    await polymarketAdmin('POST', `/clob/orders/${res.body.venue_order_id}/cross`);
    await syncVenueOrders(deps);
    await syncVenueOrders(deps);
    stored = (await deps.models.Trade.findById(res.body.trade_id).lean())!;
    assert.equal(stored.status, 'filled');
    assert.equal(stored.fill!.sharesMicro, 50_000_000);
    assert.equal(stored.fill!.amountMicro, 10_000_000);
    const position = (await deps.models.Position.findOne({
      agentId: t.agent.agent_id,
      venue: 'polymarket',
    }).lean())!;
    assert.equal(position.sharesYesMicro, 50_000_000);
    assert.equal(position.costYesMicro, 10_000_000);
    assert.equal(
      await deps.models.LedgerEntry.countDocuments({ tradeId: res.body.trade_id }),
      2,
      'one entry per match',
    );
    const history = await api().get('/api/sdk/trades?venue=polymarket').set(asAgent(t.agent)).expect(200);
    assert.ok(JSON.stringify(history.body).includes(res.body.trade_id), 'in the trade history');
    // The late fill has the effects of an immediate one (trade.executed, the buy's monitor, price alerts).
    const effects = await eventuallyCompleted('after-trade-fill', res.body.trade_id);
    assert.equal(effects?.filled, true, 'the fill’s effects ran');
    assert.equal((await deps.models.Trade.findById(res.body.trade_id).lean())!.lateEffectsQueued, true);

    // Had Redis failed right after the close, the next sync queues the effects then.
    await (await deps.queues.findJob('after-trade-fill', {
      tradeId: res.body.trade_id,
      late: true,
    }))!.remove();
    await deps.models.Trade.updateOne(
      { _id: res.body.trade_id },
      { $set: { lateEffectsQueued: false, finishedAt: new Date(Date.now() - 60_000) } },
    );
    // (Other tests' closes may be swept in the same run: the count is at least this one.)
    assert.ok((await syncVenueOrders(deps)).requeued >= 1);
    assert.equal((await eventuallyCompleted('after-trade-fill', res.body.trade_id))?.filled, true);
    assert.equal((await deps.models.Trade.findById(res.body.trade_id).lean())!.lateEffectsQueued, true);
  });

  it('when the kill switch is on or the daily spend is reached, then a real-venue buy is refused before any order', async () => {
    const t = await managedTrader();
    const m = await importedMarket(t.agent);
    await api().patch('/api/sdk/settings').set(asUser(t.token)).send({ sdk_daily_limit: 10 }).expect(200);
    const first = await trade(t.agent, { market_id: m.marketId, side: 'yes', amount: 6 }).expect(200);
    assert.equal(first.body.success, true, JSON.stringify(first.body));
    const over = await trade(t.agent, { market_id: m.marketId, side: 'no', amount: 6 });
    assert.ok([200, 429].includes(over.status), JSON.stringify(over.body));
    assert.match(JSON.stringify(over.body), /daily/i);
    await api().patch('/api/sdk/settings').set(asUser(t.token)).send({ trading_paused: true }).expect(200);
    const paused = await trade(t.agent, { market_id: m.marketId, side: 'yes', amount: 1 }).expect(200);
    assert.equal(paused.body.error_code, 'trading_paused');
    const orders = await polymarketAdmin<unknown[]>('GET', `/clob/orders?owner=${t.address}`);
    assert.equal(orders.length, 1, 'only the first buy reached the venue');
  });

  it('when the wallet has no credentials or is unlinked, or a FOK cannot fill, then the refusal says how to fix it', async () => {
    const t = await externalTrader();
    const m = await importedMarket(t.agent);
    // A FOK whose limit is below every ask: killed, nothing booked.
    const fok = await t.clob.createMarketOrder(
      { tokenID: m.yes, amount: 20, side: Side.BUY, price: 0.4 },
      { tickSize: '0.01', negRisk: false },
    );
    const killed = await trade(t.agent, {
      market_id: m.marketId,
      side: 'yes',
      amount: 20,
      order_type: 'FOK',
      signed_order: fok,
    }).expect(200);
    assert.equal(killed.body.success, false, JSON.stringify(killed.body));
    assert.equal(killed.body.error_code, 'no_liquidity');
    assert.match(killed.body.error, /not filled/);
    assert.equal(
      await testContext().deps.models.LedgerEntry.countDocuments({ tradeId: killed.body.trade_id }),
      0,
    );

    await testContext().deps.models.ClobCredential.deleteMany({});
    const signed = await t.clob.createMarketOrder({ tokenID: m.yes, amount: 5, side: Side.BUY, price: 0.6 });
    const noCreds = await trade(t.agent, {
      market_id: m.marketId,
      side: 'yes',
      amount: 5,
      signed_order: signed,
    }).expect(200);
    assert.equal(noCreds.body.error_code, 'clob_credentials_missing');
    assert.match(noCreds.body.hint, /POST \/api\/sdk\/wallet\/credentials/);

    await api().post('/api/sdk/wallet/unlink').set(asAgent(t.agent)).send({}).expect(200);
    const unlinked = await trade(t.agent, {
      market_id: m.marketId,
      side: 'yes',
      amount: 5,
      signed_order: signed,
    }).expect(200);
    // The managed wallet takes over: the client's order is not from it.
    assert.equal(unlinked.body.success, false, JSON.stringify(unlinked.body));
    assert.equal(unlinked.body.error_code, 'wallet_mismatch', JSON.stringify(unlinked.body));
    assert.match(unlinked.body.hint, /wallet\/link/);
  });

  it('when the agent is unclaimed or real trading is off, then nothing is sent', async () => {
    const unclaimed = await registerAgent();
    const host = await externalTrader();
    const m = await importedMarket(host.agent);
    const denied = await trade(unclaimed, { market_id: m.marketId, side: 'yes', amount: 5 });
    assert.equal(denied.status, 403);
    assert.match(denied.body.claim_url, new RegExp(unclaimed.claim_code));
    await api()
      .patch('/api/sdk/settings')
      .set(asUser(host.token))
      .send({ sdk_real_trading_enabled: false })
      .expect(200);
    const signed = await host.clob.createMarketOrder({
      tokenID: m.yes,
      amount: 5,
      side: Side.BUY,
      price: 0.6,
    });
    const off = await trade(host.agent, {
      market_id: m.marketId,
      side: 'yes',
      amount: 5,
      signed_order: signed,
    }).expect(200);
    assert.equal(off.body.success, false);
    assert.equal(off.body.error_code, 'real_trading_disabled');
  });

  it('when execute: true is sent (prepare_real_trade), then order parameters come back and nothing is traded', async () => {
    const t = await externalTrader();
    const m = await importedMarket(t.agent);
    const before = await testContext().deps.models.Trade.countDocuments({ agentId: t.agent.agent_id });
    const res = await api()
      .post('/api/sdk/trade')
      .set(asAgent(t.agent))
      .send({ market_id: m.marketId, side: 'yes', amount: 10, execute: true })
      .expect(200);
    assert.equal(res.body.success, true, JSON.stringify(res.body));
    assert.equal(res.body.platform, 'polymarket');
    assert.ok(res.body.intent_id);
    assert.equal(res.body.order_params.token_id, m.yes);
    assert.equal(res.body.order_params.condition_id, m.conditionId);
    assert.equal(res.body.order_params.side, 'BUY');
    assert.ok(res.body.order_params.size > 0);
    assert.equal(await testContext().deps.models.Trade.countDocuments({ agentId: t.agent.agent_id }), before);
  });

  it('when a dry run is asked on polymarket, then the live book prices it and no order is sent', async () => {
    const t = await externalTrader();
    const m = await importedMarket(t.agent);
    const res = await trade(t.agent, {
      market_id: m.marketId,
      side: 'yes',
      amount: 10,
      dry_run: true,
    }).expect(200);
    assert.equal(res.body.success, true, JSON.stringify(res.body));
    assert.equal(res.body.dry_run, true);
    assert.ok(res.body.shares_bought > 0);
    const open = await api().get('/api/sdk/orders/open').set(asAgent(t.agent)).expect(200);
    assert.equal(open.body.count, 0);
  });
});
