import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { OrderType, Side } from '@polymarket/clob-client-v2';
import { auditLedger } from '../../shared/domains/audit/audit.js';
import { tradeContext } from '../../shared/domains/trading/context.js';
import {
  followSettlement,
  followSettlements,
  reversalEntryId,
} from '../../shared/domains/trading/venue-settlement.js';
import { testContext } from '../support/context.js';
import { api } from '../support/http.js';
import { syncVenueOrders } from '../../shared/domains/trading/venue-orders.js';
import {
  asAgent,
  externalTrader,
  importedMarket,
  managedTrader,
  polymarketTrade,
  restingBuy,
  signedBuy,
  signedSell,
  type Trader,
} from '../support/polymarket-traders.js';
import { until } from '../support/until.js';
import { webhookReceiver as receiver } from '../support/webhook-receiver.js';
import { polymarketAdmin } from '../support/venue-emulators.js';

interface EmulatedTrade {
  id: string;
  taker_order_id: string;
  status: string;
}

/** The emulator's CLOB trade of a taker order. */
async function clobTradeOf(orderId: string): Promise<EmulatedTrade> {
  const all = await polymarketAdmin<EmulatedTrade[]>('GET', '/clob/trades');
  const trade = all.find((t) => t.taker_order_id === orderId);
  assert.ok(trade, `no CLOB trade for order ${orderId}`);
  return trade;
}

const setStatus = (tradeId: string, status: string) =>
  polymarketAdmin('POST', `/clob/trades/${tradeId}/status`, { status });

/** The agent's differences in the ledger audit (none when its money and positions are exact). */
async function auditOf(agentId: string) {
  const report = await auditLedger(testContext().deps.models);
  return report.differences.filter((d) => JSON.stringify(d).includes(agentId));
}

const positionOf = (t: Pick<Trader, 'agent'>) =>
  testContext().deps.models.Position.findOne({ agentId: t.agent.agent_id, venue: 'polymarket' }).lean();

describe('Polymarket matches settle on chain (emulated CLOB) #integration', function () {
  this.timeout(60_000);

  it('when the chain fails a client-signed buy, then it is answered unconfirmed, rolled back once, the agent is told, and the position and audit are exact', async () => {
    const { deps } = testContext();
    const rx = await receiver();
    try {
      const t = await externalTrader();
      await api().post('/api/sdk/webhooks').set(asAgent(t.agent)).send({ url: rx.url }).expect(200);
      const m = await importedMarket(t.agent);
      const before = await polymarketAdmin<{ pusd: number }>('GET', `/wallets/${t.wallet.address}`);

      const res = await signedBuy(t, m);
      assert.equal(res.body.success, true, JSON.stringify(res.body));
      assert.equal(res.body.order_status, 'matched');
      assert.equal(res.body.fill_status, 'unconfirmed', 'matched, not yet settled on chain');
      assert.ok(res.body.shares_bought > 0);
      const tradeId = res.body.trade_id as string;
      const booked = (await positionOf(t))!;
      assert.equal(booked.sharesYesMicro, Math.round(res.body.shares_bought * 1e6), 'booked at the match');

      // The chain reverts the settlement transaction: the emulator rolls its ledger back.
      const clob = await clobTradeOf(res.body.order_id);
      await setStatus(clob.id, 'FAILED');

      // The follow-up runs twice at once and once more after: the rollback happens exactly once.
      const runs = await Promise.all([followSettlements(deps), followSettlements(deps)]);
      assert.ok(
        runs.some((r) => r.failed >= 1),
        JSON.stringify(runs),
      );
      const stored = (await deps.models.Trade.findById(tradeId).lean())!;
      await followSettlement(deps, tradeContext(deps), { ...stored, status: 'filled' });
      await followSettlements(deps);

      const reversals = await deps.models.LedgerEntry.find({ tradeId, kind: 'venue-reversal' }).lean();
      assert.equal(reversals.length, 1, 'one reversal entry');
      assert.equal(reversals[0]!._id, reversalEntryId(tradeId));
      assert.equal(reversals[0]!.position!.sharesYesMicro, -booked.sharesYesMicro);
      assert.equal(reversals[0]!.position!.costYesMicro, -booked.costYesMicro);

      const failed = (await deps.models.Trade.findById(tradeId).lean())!;
      assert.equal(failed.status, 'failed');
      assert.equal(failed.venueOrder!.settlement, 'failed');
      assert.equal(failed.errorCode, 'settlement_failed');
      assert.match(failed.failureReason!, /settlement failed on chain/);
      assert.match(failed.failureReason!, new RegExp(clob.id));
      assert.equal(failed.fill, null);

      // The position is exactly as before the buy: nothing held, nothing paid; the agent's counters too.
      const position = (await positionOf(t))!;
      assert.equal(position.sharesYesMicro, 0);
      assert.equal(position.costYesMicro, 0);
      assert.equal(position.status, 'closed');
      const agent = (await deps.models.Agent.findById(t.agent.agent_id).lean())!;
      assert.equal(agent.realTradesCount, 0);
      assert.equal(agent.tradesCount, 0);
      assert.deepEqual(await auditOf(t.agent.agent_id), [], 'the ledger audit finds nothing');

      // The venue's wallet agrees: its pUSD is back and it holds no shares.
      const wallet = await polymarketAdmin<{ pusd: number; tokens: Record<string, number> }>(
        'GET',
        `/wallets/${t.wallet.address}`,
      );
      assert.equal(wallet.pusd, before.pusd);
      assert.equal(Number(wallet.tokens[m.yes] ?? 0), 0);

      // The agent is told: the trade row says why, a resend of the trade replays the failure, and
      // its webhook receives trade.failed once.
      const history = await api()
        .get('/api/sdk/trades?venue=polymarket&include_failed=true')
        .set(asAgent(t.agent))
        .expect(200);
      const row = (history.body.trades as Record<string, unknown>[]).find((r) => r.trade_id === tradeId)!;
      assert.equal(row.status, 'failed', JSON.stringify(row));
      assert.equal(row.settlement, 'failed');
      assert.equal(row.error_code, 'settlement_failed');
      assert.equal(row.failure_reason, failed.failureReason);
      const positions = await api()
        .get('/api/sdk/positions?venue=polymarket')
        .set(asAgent(t.agent))
        .expect(200);
      assert.ok(
        !(positions.body.positions as { market_id: string }[]).some((p) => p.market_id === m.marketId),
        JSON.stringify(positions.body),
      );
      const told = await until(
        async () => rx.got.filter((e) => e.type === 'trade.failed'),
        (e) => e.length > 0,
      );
      assert.equal(told.length, 1, JSON.stringify(rx.got));
      assert.equal(told[0]!.data.trade_id, tradeId);
      assert.equal(told[0]!.data.error_code, 'settlement_failed');
      assert.equal(told[0]!.data.whole, true);
      assert.equal(told[0]!.data.shares, res.body.shares_bought);
      // The executed event may have gone out at the match; the failure is announced exactly once.
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(rx.got.filter((e) => e.type === 'trade.failed').length, 1);
    } finally {
      await rx.close();
    }
  });

  it('when the chain confirms a match, then it goes unconfirmed → filled and stays booked', async () => {
    const { deps } = testContext();
    const t = await externalTrader();
    const m = await importedMarket(t.agent);
    const key = randomUUID();
    const signed = await t.clob.createMarketOrder({ tokenID: m.yes, amount: 10, side: Side.BUY, price: 0.6 });
    const body = {
      market_id: m.marketId,
      side: 'yes',
      amount: 10,
      order_type: OrderType.FAK,
      signed_order: signed,
      idempotency_key: key,
    };
    const res = await polymarketTrade(t.agent, body).expect(200);
    assert.equal(res.body.fill_status, 'unconfirmed', JSON.stringify(res.body));
    const tradeId = res.body.trade_id as string;
    const clob = await clobTradeOf(res.body.order_id);

    // Mined, not final yet: still settling, and a resend still reads unconfirmed.
    await setStatus(clob.id, 'MINED');
    await followSettlements(deps);
    let stored = (await deps.models.Trade.findById(tradeId).lean())!;
    assert.equal(stored.venueOrder!.settlement, 'pending');
    const again = await polymarketTrade(t.agent, body).expect(200);
    assert.equal(again.body.trade_id, tradeId);
    assert.equal(again.body.fill_status, 'unconfirmed');
    const rowOf = async () => {
      const list = await api().get('/api/sdk/trades?venue=polymarket').set(asAgent(t.agent)).expect(200);
      return (list.body.trades as Record<string, unknown>[]).find((r) => r.trade_id === tradeId)!;
    };
    assert.equal((await rowOf()).settlement, 'pending');

    await setStatus(clob.id, 'CONFIRMED');
    await Promise.all([followSettlements(deps), followSettlements(deps)]);
    stored = (await deps.models.Trade.findById(tradeId).lean())!;
    assert.equal(stored.status, 'filled');
    assert.equal(stored.venueOrder!.settlement, 'confirmed');
    assert.equal((stored.result as { fill_status: string }).fill_status, 'filled');
    // A resend under the same key now replays the settled answer.
    const settled = await polymarketTrade(t.agent, body).expect(200);
    assert.equal(settled.body.trade_id, tradeId);
    assert.equal(settled.body.fill_status, 'filled');
    assert.equal(settled.body.shares_bought, res.body.shares_bought);
    assert.equal((await rowOf()).settlement, 'confirmed');
    assert.equal((await rowOf()).status, 'filled');

    const position = (await positionOf(t))!;
    assert.equal(position.sharesYesMicro, Math.round(res.body.shares_bought * 1e6));
    assert.equal(position.status, 'open');
    assert.equal(await deps.models.LedgerEntry.countDocuments({ tradeId, kind: 'venue-reversal' }), 0);
    assert.deepEqual(await auditOf(t.agent.agent_id), []);
  });

  it('when the chain fails a sale, then the shares, their cost and the realised P&L come back once', async () => {
    const { deps } = testContext();
    const t = await externalTrader();
    const m = await importedMarket(t.agent);
    const bought = await signedBuy(t, m, 20);
    await setStatus((await clobTradeOf(bought.body.order_id)).id, 'CONFIRMED');
    await followSettlements(deps);
    const held = (await positionOf(t))!;
    const size = Math.floor(bought.body.shares_bought);
    // Below the bid: it matches at once.
    const sold = await signedSell(t, m, size, 0.3);
    assert.equal(sold.status, 200, JSON.stringify(sold.body));
    assert.equal(sold.body.order_status, 'matched', JSON.stringify(sold.body));
    assert.equal(sold.body.fill_status, 'unconfirmed');
    const afterSale = (await positionOf(t))!;
    assert.equal(afterSale.sharesYesMicro, held.sharesYesMicro - size * 1e6);
    assert.notEqual(afterSale.realizedPnlMicro, 0);

    await setStatus((await clobTradeOf(sold.body.order_id)).id, 'FAILED');
    await Promise.all([followSettlements(deps), followSettlements(deps)]);
    const restored = (await positionOf(t))!;
    assert.equal(restored.sharesYesMicro, held.sharesYesMicro);
    assert.equal(restored.costYesMicro, held.costYesMicro);
    assert.equal(restored.realizedPnlMicro, held.realizedPnlMicro);
    assert.equal(restored.status, 'open');
    const trade = (await deps.models.Trade.findById(sold.body.trade_id).lean())!;
    assert.equal(trade.status, 'failed');
    assert.equal(trade.errorCode, 'settlement_failed');
    // The buy stays counted; the failed sale does not.
    assert.equal((await deps.models.Agent.findById(t.agent.agent_id).lean())!.realTradesCount, 1);
    assert.deepEqual(await auditOf(t.agent.agent_id), []);
  });

  it('when one of two matches of a resting order fails, then only its part is rolled back and the trade keeps the rest', async () => {
    const { deps } = testContext();
    const t = await managedTrader();
    const m = await importedMarket(t.agent);
    const res = await restingBuy(t.agent, m).expect(200);
    assert.equal(res.body.order_status, 'live', JSON.stringify(res.body));
    const first = await polymarketAdmin<{ trade: { id: string } }>(
      'POST',
      `/clob/orders/${res.body.venue_order_id}/cross`,
      { size: 20 },
    );
    await syncVenueOrders(deps);
    const second = await polymarketAdmin<{ trade: { id: string } }>(
      'POST',
      `/clob/orders/${res.body.venue_order_id}/cross`,
    );
    await syncVenueOrders(deps);
    const tradeId = res.body.trade_id as string;
    let stored = (await deps.models.Trade.findById(tradeId).lean())!;
    assert.equal(stored.status, 'filled');
    assert.equal((stored.result as { fill_status: string }).fill_status, 'unconfirmed');
    assert.equal(stored.venueOrder!.settlement, 'pending');

    // One failed, the other still settling: nothing is decided until both are final.
    await setStatus(first.trade.id, 'FAILED');
    assert.equal((await followSettlement(deps, tradeContext(deps), stored)) ?? 'none', 'pending');
    assert.equal((await positionOf(t))!.sharesYesMicro, 50_000_000);
    await setStatus(second.trade.id, 'CONFIRMED');
    await Promise.all([followSettlements(deps), followSettlements(deps)]);

    stored = (await deps.models.Trade.findById(tradeId).lean())!;
    assert.equal(stored.status, 'filled', 'the confirmed part stands');
    assert.equal(stored.venueOrder!.settlement, 'confirmed');
    assert.equal(stored.fill!.sharesMicro, 30_000_000);
    assert.equal(stored.fill!.amountMicro, 6_000_000);
    assert.match(stored.failureReason!, new RegExp(first.trade.id));
    const result = stored.result as { fill_status: string; shares_bought: number; cost: number };
    assert.equal(result.fill_status, 'filled');
    assert.equal(result.shares_bought, 30);
    assert.equal(result.cost, 6);
    const position = (await positionOf(t))!;
    assert.equal(position.sharesYesMicro, 30_000_000);
    assert.equal(position.costYesMicro, 6_000_000);
    assert.equal(await deps.models.LedgerEntry.countDocuments({ tradeId, kind: 'venue-reversal' }), 1);
    assert.deepEqual(await auditOf(t.agent.agent_id), []);
  });

  it('when a failed buy’s shares were sold on meanwhile, then the rollback takes only what is held, never below zero', async () => {
    const { deps } = testContext();
    const t = await externalTrader();
    const m = await importedMarket(t.agent);
    const bought = await signedBuy(t, m, 20);
    const size = Math.floor(bought.body.shares_bought / 2);
    const sold = await signedSell(t, m, size, 0.3);
    assert.equal(sold.body.order_status, 'matched', JSON.stringify(sold.body));
    await setStatus((await clobTradeOf(sold.body.order_id)).id, 'CONFIRMED');
    await setStatus((await clobTradeOf(bought.body.order_id)).id, 'FAILED');
    await Promise.all([followSettlements(deps), followSettlements(deps)]);

    const position = (await positionOf(t))!;
    assert.equal(position.sharesYesMicro, 0, 'what was still held is taken back, no more');
    assert.equal(position.costYesMicro, 0);
    assert.equal(position.status, 'closed');
    assert.equal((await deps.models.Trade.findById(bought.body.trade_id).lean())!.status, 'failed');
    assert.equal((await deps.models.Trade.findById(sold.body.trade_id).lean())!.status, 'filled');
    assert.equal(
      await deps.models.LedgerEntry.countDocuments({ tradeId: bought.body.trade_id, kind: 'venue-reversal' }),
      1,
    );
    assert.deepEqual(await auditOf(t.agent.agent_id), []);
  });

  it('when a match never becomes final on chain, then past its time operators are told once (log, metric, admin list) and it is followed with backoff until it settles', async () => {
    const { deps, operatorToken } = testContext();
    const t = await externalTrader();
    const m = await importedMarket(t.agent);
    const res = await signedBuy(t, m);
    assert.equal(res.body.fill_status, 'unconfirmed', JSON.stringify(res.body));
    const tradeId = res.body.trade_id as string;
    const clob = await clobTradeOf(res.body.order_id);
    await setStatus(clob.id, 'MINED');
    const stored = async () => (await deps.models.Trade.findById(tradeId).lean())!;
    const listed = async () => {
      const list = await api()
        .get('/api/admin/settlements')
        .set('Authorization', `Bearer ${operatorToken}`)
        .expect(200);
      assert.equal(list.body.overdue_after_minutes, deps.env.SETTLEMENT_OVERDUE_MINUTES);
      return (list.body.overdue as { trade_id: string; next_look_at: string }[]).find(
        (o) => o.trade_id === tradeId,
      );
    };
    const overdueMetric = async () =>
      (await deps.metrics.registry.getSingleMetric('venue_settlements_overdue')!.get()).values.find(
        (v) => v.labels.venue === 'polymarket',
      )?.value ?? 0;

    await followSettlements(deps);
    assert.equal((await stored()).venueOrder!.settlementOverdueAt, null, 'within its time');
    assert.equal(await listed(), undefined);

    const { clock, log } = deps;
    const errors: string[] = [];
    const booked = (await stored()).finishedAt!.getTime();
    let now = booked + (deps.env.SETTLEMENT_OVERDUE_MINUTES + 1) * 60_000;
    deps.clock = () => new Date(now);
    deps.log = Object.create(log, {
      error: {
        value: (obj: { tradeId?: string }, msg: string) => {
          if (obj?.tradeId === tradeId) errors.push(msg);
        },
      },
    }) as typeof log;
    try {
      await Promise.all([followSettlements(deps), followSettlements(deps)]);
      const flagged = await stored();
      assert.equal(flagged.venueOrder!.settlement, 'pending', 'still followed, not given up');
      assert.equal(flagged.venueOrder!.settlementOverdueAt!.getTime(), now);
      const nextLook = flagged.venueOrder!.settlementNextLookAt!.getTime();
      assert.ok(nextLook > now + 60_000 - 1, 'asked again only after its backoff');
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.match(errors[0]!, /still not final on chain after \d+ minutes/);
      assert.equal((await listed())?.next_look_at, new Date(nextLook).toISOString());
      assert.ok((await overdueMetric()) >= 1);
      const page = await api()
        .get('/admin/venues')
        .set('Authorization', `Bearer ${operatorToken}`)
        .expect(200);
      assert.match(page.text, /Settlements overdue/);
      assert.ok(page.text.includes(tradeId), 'the console lists it');

      // Final on the venue now, but not asked before its next look: it stays pending until then.
      await setStatus(clob.id, 'CONFIRMED');
      await followSettlements(deps);
      assert.equal((await stored()).venueOrder!.settlement, 'pending');
      assert.equal(errors.length, 1, 'told once');

      now = nextLook;
      const before = await overdueMetric();
      await followSettlements(deps);
      const settled = await stored();
      assert.equal(settled.venueOrder!.settlement, 'confirmed');
      assert.equal((settled.result as { fill_status: string }).fill_status, 'filled');
      assert.equal(await listed(), undefined, 'no longer overdue');
      assert.equal(await overdueMetric(), before - 1);
    } finally {
      deps.clock = clock;
      deps.log = log;
    }
    assert.deepEqual(await auditOf(t.agent.agent_id), []);
  });
});
