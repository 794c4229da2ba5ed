import { fromMicro } from '../../shared/domains/money.js';
import type { MarketRecord } from '../../shared/domains/markets/market.model.js';
import { venueKey } from '../../shared/domains/markets/venue-key.js';
import { checkStanding, guardedTrade, loadGuard } from '../../shared/domains/limits/trade-guard.js';
import { positionId } from '../../shared/domains/positions/position.model.js';
import { refusalOf, type Refusal } from '../../shared/domains/refusal.js';
import type {
  OrderState,
  TradeExecutionContext,
  VenueTrade,
  VenueTrading,
} from '../../shared/domains/trading/venue-trading.js';
import { recordAndRun } from '../../shared/domains/trading/record-and-run.js';
import { finishTrade, recordVenueOrderId } from '../../shared/domains/trading/trade-lifecycle.js';
import type { TradeRecord, VenueOrder } from '../../shared/domains/trading/trade.model.js';
import {
  bookQuoteResult,
  MARKET_NOT_FOUND,
  NO_MARKET,
  refusedResult,
  shapeOf,
} from '../../shared/domains/trading/trade-result.js';
import type { TradeResult } from '../../shared/domains/trading/trade.schemas.js';
import { orderAnswer, orderFill, recordOrderState } from '../../shared/domains/trading/venue-order-state.js';
import { isServiceMarketId } from '../../shared/domains/venues/external-ids.js';
import type { VenueId } from '../../shared/domains/venues/venue-id.js';
import type { ExchangeOrder, FakeExchange } from './fake-exchange.js';

type ExchangeOrderType = 'FAK' | 'FOK' | 'GTC';

/** Where an exchange order stands, in the trading seam's terms. */
const stateOf = (o: ExchangeOrder): OrderState => ({
  sharesMicro: Math.round(o.filledShares * 1e6),
  amountMicro: Math.round(o.filledAmount * 1e6),
  working: o.status === 'live' ? 'live' : 'done',
  canceled: o.status === 'canceled',
});

const exchangeRefusal = (reason: string): Refusal =>
  refusalOf(
    'order_rejected',
    `The fixture venue rejected the order: ${reason}.`,
    'Check the market and size.',
  );

/**
 * Trading on the fixture venue as on a real-money external venue (claimed agents only) or, with
 * `money` paper, on a play-money one (any agent): the account's safeguards, the trade recorded and run by the worker, orders that may rest (GTC) and
 * be cancelled. Only the calls to the exchange are the venue's own; everything else is the
 * service's shared real-venue path (recordAndRun, recordOrderState, orderAnswer).
 */
export function fixtureTrading(
  venue: VenueId,
  exchange: FakeExchange,
  money: 'paper' | 'real' = 'real',
): VenueTrading {
  /** Why this market cannot be traded here, or its venue id. */
  function tradeable(market: MarketRecord | null): { externalId: string } | Refusal {
    if (!market) return MARKET_NOT_FOUND;
    if (market.importSource !== venue || !market.venueRef?.externalId)
      return refusalOf(
        'market_not_on_venue',
        `This market is not a ${venue} market: it trades on sim only.`,
        `Import the ${venue} market (POST /api/sdk/markets/import/venue) and trade its market_id.`,
        'market',
      );
    if (market.status !== 'active')
      return refusalOf(
        'market_closed',
        `This market is ${market.status}.`,
        'Pick an active market.',
        'market',
      );
    return { externalId: market.venueRef.externalId };
  }

  async function submit(trade: VenueTrade): Promise<TradeResult> {
    const { deps, agent, req, shape, holdings } = trade;
    const guard = req.dry_run ? null : await loadGuard(deps, agent);
    const standing = guard && checkStanding(guard, guardedTrade(shape, venue));
    if (standing) return refusedResult(shape, NO_MARKET, standing, holdings, false);
    const market = isServiceMarketId(req.market_id)
      ? await deps.models.Market.findById(req.market_id).lean()
      : null;
    const target = tradeable(market);
    if ('errorCode' in target)
      return refusedResult(shape, market ?? NO_MARKET, target, holdings, req.dry_run);
    const m = market!;
    if (req.action === 'sell') {
      const held = await deps.models.Position.findById(positionId(agent._id, m._id, venue)).lean();
      const have = (req.side === 'yes' ? held?.sharesYesMicro : held?.sharesNoMicro) ?? 0;
      if (have < shape.sharesMicro)
        return refusedResult(
          shape,
          m,
          refusalOf(
            'insufficient_shares',
            `Insufficient shares to sell: ${fromMicro(have)} ${req.side.toUpperCase()} shares are held on ${venue}.`,
            'Refresh your share count with GET /api/sdk/positions.',
            'shares',
          ),
          holdings,
          req.dry_run,
        );
    }
    const quote = await deps.venues.get(venue).executableQuote(venueKey(m), {
      outcome: req.side,
      action: req.action,
      amount: req.action === 'buy' ? fromMicro(shape.amountMicro) : undefined,
      shares: req.action === 'sell' ? fromMicro(shape.sharesMicro) : undefined,
    });
    const price = req.price ?? quote?.worstPrice ?? null;
    if (!quote || price === null)
      return refusedResult(
        shape,
        m,
        refusalOf('no_liquidity', 'The order book has no liquidity on this side.', 'Try later.', 'price'),
        holdings,
        req.dry_run,
      );
    if (req.dry_run) return bookQuoteResult(shape, m, quote, holdings);
    const venueOrder: VenueOrder = {
      orderId: null,
      signed: null,
      orderType: req.order_type ?? (req.action === 'buy' ? 'FAK' : 'GTC'),
      signer: 'managed',
      tokenId: `${target.externalId}-${req.side}`,
      negRisk: false,
      tickSize: m.tickSize,
      price,
      status: null,
      matchedSharesMicro: 0,
      matchedAmountMicro: 0,
      syncedAt: null,
    };
    const fresh = async () => (await deps.models.Market.findById(m._id).lean()) ?? m;
    return recordAndRun({
      deps,
      agent,
      req,
      shape,
      holdings,
      market: m,
      fresh,
      guard: guard!,
      fields: { venueOrder },
    });
  }

  /**
   * Places the trade's order under the trade id as client order id: a second run (a retry after a
   * crash) gets the same order back from the exchange instead of placing another.
   */
  async function execute(ctx: TradeExecutionContext, trade: TradeRecord, market: MarketRecord) {
    const vo = trade.venueOrder!;
    const placed = exchange.placeOrder({
      clientOrderId: trade._id,
      marketId: market.venueRef!.externalId,
      outcome: trade.side,
      action: trade.action,
      size: trade.action === 'buy' ? fromMicro(trade.amountMicro) : fromMicro(trade.sharesMicro),
      limit: trade.limitPrice,
      // GTD has no expiry here: it rests like GTC.
      type: (vo.orderType === 'GTD' ? 'GTC' : vo.orderType) as ExchangeOrderType,
    });
    if ('refused' in placed) {
      const refusal = exchangeRefusal(placed.refused);
      const holdings = { balanceMicro: 0, sharesYesMicro: 0, sharesNoMicro: 0 };
      const result = refusedResult(shapeOf(trade), market, refusal, holdings, false);
      return finishTrade(ctx.models, trade._id, result, { refusal }, ctx.now());
    }
    await recordVenueOrderId(ctx.models, trade._id, placed.id);
    const state = stateOf(placed);
    const t = await recordOrderState(ctx, { ...trade, venueOrder: { ...vo, orderId: placed.id } }, state);
    const result = await orderAnswer(ctx, t, market, state);
    const open = state.working !== 'done';
    return finishTrade(
      ctx.models,
      t._id,
      result,
      { fill: orderFill(state, market, result), ...(open ? { open: true } : {}) },
      ctx.now(),
    );
  }

  return {
    venue,
    capabilities: {
      money,
      restingOrders: true,
      cancellable: true,
      orderTypes: ['FAK', 'FOK', 'GTC'],
      maxBuyMicro: null,
      fees: 'none',
    },
    warnings: (req) =>
      req.order_type === 'GTD' ? ['order_type GTD rests without expiry on the fixture venue, as GTC.'] : [],
    submit,
    execute,
    orderState: async (_ctx, trade) => {
      const id = trade.venueOrder?.orderId;
      const order = id ? exchange.order(id) : null;
      return order && stateOf(order);
    },
    cancel: async (_ctx, _trade, orderId) => {
      const answer = exchange.cancel(orderId);
      return 'refused' in answer ? { canceled: false, reason: answer.refused } : { canceled: true };
    },
  };
}
