import { appendLedgerEntry } from '../ledger/ledger.js';
import type { MarketRecord } from '../markets/market.model.js';
import { heldElsewhere, holderOfTrade } from '../positions/holder.js';
import { positionId } from '../positions/position.model.js';
import { accept } from '../refusal.js';
import type { OrderState, TradeExecutionContext } from './venue-trading.js';
import { recordMatchedSize, recordVenueOrderStatus, type TradeFill } from './trade-lifecycle.js';
import type { TradeRecord } from './trade.model.js';
import { shapeOf, venueOrderResult, type VenueOrderOutcome } from './trade-result.js';
import type { TradeResult } from './trade.schemas.js';

/**
 * An order on an external venue after it was placed, the same on every venue: what it has matched
 * (booked on the agent's ledger once per new cumulative size), the venue's word on it, and the
 * answer and fill the trade records for where it stands.
 */

/** The position a trade's ledger entries change (its agent's, on its market and venue). */
export const positionTarget = (t: Pick<TradeRecord, 'agentId' | 'marketId' | 'venue'>) => ({
  marketId: t.marketId,
  venue: t.venue,
  positionId: positionId(t.agentId, t.marketId, t.venue),
});

/**
 * Books what the venue has matched of the order beyond what is booked already: one ledger entry per
 * new cumulative size (its id names that size, so a repeat finds it), then the trade's counters.
 */
export async function bookMatches(
  ctx: TradeExecutionContext,
  t: TradeRecord,
  state: Pick<OrderState, 'sharesMicro' | 'amountMicro'>,
): Promise<TradeRecord> {
  const vo = t.venueOrder!;
  const addShares = state.sharesMicro - vo.matchedSharesMicro;
  const addAmount = state.amountMicro - vo.matchedAmountMicro;
  if (addShares <= 0) return t;
  const first = vo.matchedSharesMicro === 0;
  // Every fill names the wallet it landed in, so the position knows where its tokens are.
  const holder = holderOfTrade(t);
  const side = t.side === 'yes' ? 'Yes' : 'No';
  const [shares, cost] = [`shares${side}Micro`, `cost${side}Micro`] as const;
  const target = positionTarget(t);
  await appendLedgerEntry(
    ctx.models,
    t.agentId,
    `${t._id}-match-${state.sharesMicro}`,
    target,
    ({ position }) => {
      // Trades are refused from a wallet other than the holder (holding-wallet.ts), but two first
      // buys from two wallets at once can both pass: the venue filled both, so the fill is booked,
      // and the split is logged for an operator (the position records one holder).
      if (holder && position && heldElsewhere(position, holder))
        ctx.deps.log.error(
          { tradeId: t._id, positionId: target.positionId, holder, recorded: position.holderAddress },
          'a fill landed in a wallet other than the position holder',
        );
      const counted = first ? { tradesCount: 1, realTradesCount: 1 } : {};
      if (t.action === 'buy')
        return accept({
          kind: 'venue-buy',
          tradeId: t._id,
          agent: counted,
          position: {
            [shares]: addShares,
            [cost]: addAmount,
            statusAfter: 'open' as const,
            source: t.source,
            holder,
          },
        });
      // A sale takes its shares' average cost off the position; shares bought elsewhere have none here.
      const held = position?.[shares] ?? 0;
      const sold = Math.min(addShares, held);
      const removed = held > 0 ? Math.round(((position?.[cost] ?? 0) * sold) / held) : 0;
      const emptyAfter =
        position !== null &&
        held - sold === 0 &&
        (side === 'Yes' ? position.sharesNoMicro : position.sharesYesMicro) === 0;
      return accept({
        kind: 'venue-sell',
        tradeId: t._id,
        agent: counted,
        position: {
          [shares]: -sold,
          [cost]: -removed,
          realizedPnlMicro: addAmount - removed,
          statusAfter: emptyAfter ? ('closed' as const) : null,
          source: t.source,
          holder,
        },
      });
    },
    ctx.now,
  );
  // A match on a venue that settles later is followed until the chain's final word (venue-settlement.ts).
  const settlement = settlesLater(ctx, t) ? ('pending' as const) : (vo.settlement ?? null);
  await recordMatchedSize(ctx.models, t._id, vo.matchedSharesMicro, {
    sharesMicro: state.sharesMicro,
    amountMicro: state.amountMicro,
    settlement,
  });
  return {
    ...t,
    venueOrder: {
      ...vo,
      matchedSharesMicro: state.sharesMicro,
      matchedAmountMicro: state.amountMicro,
      settlement,
    },
  };
}

/** The trade's venue settles its matches on chain after the match (VenueTrading `settlement`). */
const settlesLater = (ctx: TradeExecutionContext, t: TradeRecord) =>
  ctx.venues.get(t.venue).settlement !== undefined;

/**
 * `filled` once the venue is done with the order, unless the chain has yet to settle what matched
 * (`unconfirmed` until it does); `submitted` while it works.
 */
function fillStatusOf(ctx: TradeExecutionContext, t: TradeRecord, state: OrderState) {
  if (state.working !== 'done') return 'submitted' as const;
  return state.sharesMicro > 0 && settlesLater(ctx, t) && t.venueOrder?.settlement !== 'confirmed'
    ? ('unconfirmed' as const)
    : ('filled' as const);
}

/** Books the order's new matches and records the venue's word on it (status, when synced). */
export async function recordOrderState(
  ctx: TradeExecutionContext,
  trade: TradeRecord,
  state: OrderState,
): Promise<TradeRecord> {
  const t = await bookMatches(ctx, trade, state);
  const status = state.working === 'done' ? (state.canceled ? 'canceled' : 'matched') : state.working;
  await recordVenueOrderStatus(ctx.models, t._id, status, ctx.now());
  return t;
}

/** The fill a trade records for where its order stands (`result`: the answer built for it). */
export const orderFill = (state: OrderState, market: MarketRecord, result: TradeResult): TradeFill => ({
  sharesMicro: state.sharesMicro,
  amountMicro: state.amountMicro,
  priceBefore: market.currentPrice,
  priceAfter: result.new_price,
  balanceAfterMicro: Math.round(result.balance * 1e6),
});

/** The trade's answer for where its order stands. */
export async function orderAnswer(
  ctx: TradeExecutionContext,
  t: TradeRecord,
  market: MarketRecord,
  state: OrderState,
): Promise<TradeResult> {
  const vo = t.venueOrder!;
  const [position, agent] = await Promise.all([
    ctx.models.Position.findById(positionId(t.agentId, t.marketId, t.venue)).lean(),
    ctx.models.Agent.findById(t.agentId, { balanceMicro: 1 }).lean(),
  ]);
  const outcome: VenueOrderOutcome = {
    sharesMicro: state.sharesMicro,
    amountMicro: state.amountMicro,
    price: state.sharesMicro > 0 ? state.amountMicro / state.sharesMicro : vo.price,
    orderStatus: state.working === 'done' ? 'matched' : state.working,
    fillStatus: fillStatusOf(ctx, t, state),
    orderId: vo.orderId,
    signer: vo.signer,
  };
  return venueOrderResult(
    shapeOf(t),
    market,
    outcome,
    {
      balanceMicro: agent?.balanceMicro ?? 0,
      sharesYesMicro: position?.sharesYesMicro ?? 0,
      sharesNoMicro: position?.sharesNoMicro ?? 0,
    },
    false,
  );
}
