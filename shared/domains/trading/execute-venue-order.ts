import { randomInt } from 'node:crypto';
import { AppError } from '../../infra/errors.js';
import { afterWrite } from '../../infra/faults.js';
import { VenueHttpError } from '../../infra/http/venue-http-error.js';
import { appendLedgerEntry } from '../ledger/ledger.js';
import type { MarketRecord } from '../markets/market.model.js';
import { heldElsewhere, holderOfTrade } from '../positions/holder.js';
import { positionId } from '../positions/position.model.js';
import { accept, type Refusal } from '../refusal.js';
import { clobRefusal } from '../venues/polymarket/orders/clob-refusals.js';
import type { ClobCredentials, ClobOrderType } from '../venues/polymarket/orders/clob-trading.js';
import type { PostOrderAnswer } from '../venues/polymarket/orders/clob-trading.schemas.js';
import { limitOrderAmounts, marketBuyAmounts } from '../venues/polymarket/orders/order-amounts.js';
import {
  orderHash,
  signOrder,
  ZERO_BYTES32,
  type SignedV2Order,
} from '../venues/polymarket/orders/order-eip712.js';
import { polymarketTrading } from '../venues/polymarket/polymarket-trading.js';
import { clobCredentialsFor, deriveManagedClobCredentials } from '../wallets/clob-credentials.js';
import { agentWalletCredentials, agentWalletSigner } from '../wallets/agent-wallets.js';
import { managedSigner } from '../wallets/managed-wallet.js';
import type { TradeExecutionContext } from './execution-context.js';
import { finishTrade, type TradeFill } from './trade-lifecycle.js';
import type { TradeRecord } from './trade.model.js';
import { refusedResult, shapeOf, venueOrderResult, type VenueOrderOutcome } from './trade-result.js';
import type { TradeResult } from './trade.schemas.js';

/** Where the venue's order stands: matched so far (cumulative) and whether it is still working. */
export interface OrderState {
  sharesMicro: number;
  amountMicro: number;
  /** `live`: resting on the book; `delayed`: queued by the venue; `done`: matched or cancelled for good. */
  working: 'live' | 'delayed' | 'done';
  /** The venue says the order was cancelled (by the owner, or a FAK/FOK remainder). */
  canceled: boolean;
}

/** The owner a trade acts for, from its settings key (`user:<id>`): real trades are a user's. */
const ownerOfTrade = (t: TradeRecord) => {
  const [kind, id] = (t.ownerKey ?? '').split(':');
  return { kind: kind === 'user' ? ('user' as const) : ('agent' as const), id: id ?? '' };
};

/**
 * The L2 credentials the trade's order goes under: the agent wallet's (stored, or derived with its
 * key on first use), else the owner's: registered (external) or derived from the managed key on first use.
 */
export async function credentialsOf(
  ctx: TradeExecutionContext,
  t: TradeRecord,
): Promise<ClobCredentials | null> {
  if (t.venueOrder?.signer === 'agent') return agentWalletCredentials(ctx.deps, t.agentId);
  const owner = ownerOfTrade(t);
  const stored = await clobCredentialsFor(ctx.deps, owner);
  if (stored || t.venueOrder?.signer !== 'managed' || owner.kind !== 'user') return stored;
  return deriveManagedClobCredentials(ctx.deps, owner.id);
}

/** The key the service signs the trade's order with: the agent's own wallet, or the owner's managed one. */
async function serviceSigner(ctx: TradeExecutionContext, t: TradeRecord) {
  if (t.venueOrder!.signer === 'agent') return agentWalletSigner(ctx.deps, t.agentId);
  const owner = ownerOfTrade(t);
  return owner.kind === 'user' ? managedSigner(ctx.deps, owner.id) : null;
}

/** The managed wallet's order for this trade, signed and recorded before it is sent (a retry re-sends the same one). */
async function managedOrder(ctx: TradeExecutionContext, t: TradeRecord): Promise<SignedV2Order | Refusal> {
  const vo = t.venueOrder!;
  const signer = await serviceSigner(ctx, t);
  if (!signer)
    return {
      error:
        'The managed wallet of this account is gone (unlinked or replaced) since the trade was accepted.',
      errorCode: 'wallet_not_linked',
      retryable: false,
      hint: 'Check GET /api/sdk/settings for the wallet, then send the trade again.',
      category: 'venue',
    };
  const market = vo.orderType === 'FAK' || vo.orderType === 'FOK';
  const amounts =
    t.action === 'buy'
      ? market
        ? marketBuyAmounts(t.amountMicro / 1e6, vo.price, vo.tickSize)
        : limitOrderAmounts('BUY', t.amountMicro / 1e6 / vo.price, vo.price, vo.tickSize)
      : limitOrderAmounts('SELL', t.sharesMicro / 1e6, vo.price, vo.tickSize);
  const order = {
    salt: String(randomInt(2 ** 47)),
    maker: signer.address,
    signer: signer.address,
    tokenId: vo.tokenId,
    makerAmount: amounts.makerAmount,
    takerAmount: amounts.takerAmount,
    side: t.action === 'buy' ? ('BUY' as const) : ('SELL' as const),
    signatureType: 0,
    timestamp: String(ctx.now().getTime()),
    expiration: '0',
    metadata: ZERO_BYTES32,
    builder: ZERO_BYTES32,
  };
  const signed = await signOrder(signer, order, vo.negRisk);
  const orderId = orderHash(order, vo.negRisk);
  const recorded = await ctx.models.Trade.updateOne(
    { _id: t._id, status: 'executing', 'venueOrder.orderId': null },
    { $set: { 'venueOrder.orderId': orderId, 'venueOrder.signed': signed } },
  );
  afterWrite(recorded.modifiedCount > 0);
  if (recorded.modifiedCount > 0) return signed;
  // An earlier run signed one first: that is the order, whatever this run made.
  const stored = await ctx.models.Trade.findById(t._id, { venueOrder: 1 }).lean();
  return stored!.venueOrder!.signed as SignedV2Order;
}

/**
 * Amounts in an answer may be human units or base units (polymarket.md §5.2). Base units are
 * integers near the order's own amounts; a fill may beat the order's price (more shares than it
 * asked for), so human units are anything fractional or within a thousandfold of the order.
 */
const micro = (value: number, signedMicro: number) =>
  !Number.isInteger(value) || value * 1e6 <= signedMicro * 1000 ? Math.round(value * 1e6) : Math.round(value);

/** What the CLOB's answer to the post says, or null when it must be looked up by the order id. */
function stateFromAnswer(answer: PostOrderAnswer, order: SignedV2Order): OrderState | Refusal {
  if (answer.success === false || (answer.errorMsg && !answer.status))
    return clobRefusal(answer.errorMsg ?? 'rejected');
  const buy = order.side === 'BUY';
  const making = answer.makingAmount ?? 0;
  const taking = answer.takingAmount ?? 0;
  // A buy makes pUSD and takes shares; a sell the reverse.
  const paid = micro(buy ? making : taking, Number(buy ? order.makerAmount : order.takerAmount));
  const got = micro(buy ? taking : making, Number(buy ? order.takerAmount : order.makerAmount));
  const status = (answer.status ?? '').toLowerCase();
  if (status === 'live') return { sharesMicro: got, amountMicro: paid, working: 'live', canceled: false };
  if (status === 'delayed')
    return { sharesMicro: got, amountMicro: paid, working: 'delayed', canceled: false };
  if (status === 'matched') return { sharesMicro: got, amountMicro: paid, working: 'done', canceled: false };
  return clobRefusal(answer.errorMsg || 'no orders found to match with FAK order');
}

/** The order as the CLOB keeps it (a lost or duplicate post): matched size at the order's price. */
export async function orderStateOf(
  ctx: TradeExecutionContext,
  creds: ClobCredentials,
  orderId: string,
  price: number,
): Promise<OrderState | null> {
  const order = await polymarketTrading(ctx.deps).order(creds, orderId);
  if (!order) return null;
  const status = order.status.toUpperCase();
  const sharesMicro = Math.round(order.size_matched * 1e6);
  return {
    sharesMicro,
    amountMicro: Math.round(order.size_matched * (order.price || price) * 1e6),
    working: status === 'LIVE' ? 'live' : status === 'DELAYED' ? 'delayed' : 'done',
    canceled: status.startsWith('CANCEL'),
  };
}

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
  const target = {
    marketId: t.marketId,
    venue: t.venue,
    positionId: positionId(t.agentId, t.marketId, t.venue),
  };
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
  await ctx.models.Trade.updateOne(
    { _id: t._id, 'venueOrder.matchedSharesMicro': vo.matchedSharesMicro },
    {
      $set: {
        'venueOrder.matchedSharesMicro': state.sharesMicro,
        'venueOrder.matchedAmountMicro': state.amountMicro,
      },
    },
  );
  return {
    ...t,
    venueOrder: { ...vo, matchedSharesMicro: state.sharesMicro, matchedAmountMicro: state.amountMicro },
  };
}

/** Books the order's new matches and records the venue's word on it (status, when synced). */
export async function recordOrderState(
  ctx: TradeExecutionContext,
  trade: TradeRecord,
  state: OrderState,
): Promise<TradeRecord> {
  const t = await bookMatches(ctx, trade, state);
  const status = state.working === 'done' ? (state.canceled ? 'canceled' : 'matched') : state.working;
  await ctx.models.Trade.updateOne(
    { _id: t._id },
    { $set: { 'venueOrder.status': status, 'venueOrder.syncedAt': ctx.now() } },
  );
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
    fillStatus: state.working === 'done' ? 'filled' : 'submitted',
    orderId: vo.orderId,
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

/**
 * Runs a real-venue trade in the worker: signs it (managed wallet) or takes the client's signed
 * order, posts it under the owner's L2 credentials, books what matched and records the answer.
 * Exactly once however often it runs: the order is recorded (with its id, the order hash) before
 * it is sent; the CLOB refuses the same order twice, so a repeat finds the first by its id.
 */
export async function executeVenueOrder(
  ctx: TradeExecutionContext,
  trade: TradeRecord,
  market: MarketRecord,
): Promise<TradeResult> {
  let t = trade;
  const vo = t.venueOrder;
  const refuse = async (refusal: Refusal) => {
    const holdings = { balanceMicro: 0, sharesYesMicro: 0, sharesNoMicro: 0 };
    return finishTrade(
      ctx.models,
      t._id,
      refusedResult(shapeOf(t), market, refusal, holdings, false),
      { refusal },
      ctx.now(),
    );
  };
  if (t.venue !== 'polymarket' || !vo)
    throw new AppError(500, 'venue_order_missing', `Trade ${t._id} has no venue order`, 'This is a bug.', {
      retryable: false,
    });
  const creds = await credentialsOf(ctx, t);
  if (!creds)
    return refuse({
      error: 'No Polymarket CLOB credentials (credentials missing) for the wallet of this account.',
      errorCode: 'clob_credentials_missing',
      retryable: false,
      hint: 'Register them: POST /api/sdk/wallet/credentials, then send the trade again.',
      category: 'venue',
    });
  let signed = vo.signed as SignedV2Order | null;
  if (!signed) {
    const made = await managedOrder(ctx, t);
    if ('errorCode' in made) return refuse(made);
    signed = made;
  }
  const orderId = vo.orderId ?? orderHash(signed, vo.negRisk);
  t = { ...t, venueOrder: { ...vo, orderId, signed } };

  let state: OrderState | Refusal | null = null;
  try {
    const answer = await polymarketTrading(ctx.deps).postOrder(creds, signed, vo.orderType as ClobOrderType);
    // The relay is a write to the world: a crash test may stop the worker right after it.
    afterWrite();
    state = stateFromAnswer(answer, signed);
  } catch (err) {
    if (!(err instanceof VenueHttpError)) throw err;
    // A refusal of the order itself is final; "Duplicated" means an earlier run's post went through.
    if (err.kind === 'client' && !/duplicat/i.test(err.message)) state = clobRefusal(err.message);
  }
  // The answer was lost or the order was a duplicate: the CLOB knows the order by its id. Not
  // found and not refused means it may still be in flight: the job retries, re-sending the same order.
  state ??= await orderStateOf(ctx, creds, orderId, vo.price);
  if (!state)
    throw new AppError(
      503,
      'venue_unavailable',
      'Polymarket did not confirm the order yet',
      'The job retries with the same order.',
      {
        retryable: true,
      },
    );
  if ('errorCode' in state) return refuse(state);

  t = await recordOrderState(ctx, t, state);
  const result = await orderAnswer(ctx, t, market, state);
  const open = state.working !== 'done';
  if (!open && state.sharesMicro === 0) return refuse(clobRefusal('no orders found to match with FAK order'));
  return finishTrade(
    ctx.models,
    t._id,
    result,
    {
      fill: orderFill(state, market, result),
      ...(open ? { open: true } : {}),
    },
    ctx.now(),
  );
}
