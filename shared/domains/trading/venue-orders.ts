import type { OrderState, TradeExecutionContext, VenueTradingDeps } from './venue-trading.js';
import { notFound } from '../../infra/errors.js';
import { VenueHttpError } from '../../infra/http/venue-http-error.js';
import type { AgentRecord } from '../agents/agent.model.js';
import { conditionRefFields } from '../venues/venue-ref-fields.js';
import { fromMicro } from '../money.js';
import { tradeContext } from './context.js';
import { orderAnswer, orderFill, recordOrderState } from './venue-order-state.js';
import { answeredOrderIds, refusedResult, shapeOf } from './trade-result.js';
import type { Refusal } from '../refusal.js';
import { closeOpenTrade, queueLateFillEffects, requeueLateFillEffects } from './trade-lifecycle.js';
import type { TradeRecord } from './trade.model.js';
import { followSettlements, type SettlementCounts } from './venue-settlement.js';

/**
 * Real-venue orders after the trade call: the sync that follows resting and delayed orders until
 * the venue is done with them, and the agent's own list and cancels (client-contract §7.3).
 */

/**
 * The follow job of a trade whose venue watches its own orders (VenueTrading `followOrder`). A trade
 * gone, or on a venue that follows none, has nothing to follow.
 */
export async function followVenueOrder(
  deps: VenueTradingDeps,
  tradeId: string,
  poll: number,
): Promise<{ status: string }> {
  const trade = await deps.models.Trade.findById(tradeId, { venue: 1, status: 1 }).lean();
  if (!trade) return { status: 'unknown' };
  const follow = deps.trading.get(trade.venue).followOrder;
  return follow ? follow(deps, tradeId, poll) : { status: trade.status };
}

/** Brings one open trade up to date with its order on the venue; finishes it when the venue is done. */
export async function syncOpenTrade(
  ctx: TradeExecutionContext,
  trade: TradeRecord,
): Promise<OrderState | null> {
  const state = await ctx.venues.get(trade.venue).orderState?.(ctx, trade);
  if (!state) return null;
  const t = await recordOrderState(ctx, trade, state);
  if (state.working === 'done') {
    const market = await ctx.models.Market.findById(t.marketId).lean();
    if (market) {
      // An order the venue ended with nothing matched (cancelled, expired) is answered as a failure,
      // as the client reads a zero fill (`success: false`), not as an empty `filled`.
      const result =
        state.sharesMicro > 0
          ? await orderAnswer(ctx, t, market, state)
          : refusedResult(shapeOf(t), market, ENDED_UNMATCHED, NO_HOLDINGS, false);
      await closeOpenTrade(ctx.models, t._id, {
        status: state.sharesMicro > 0 ? 'filled' : 'canceled',
        result,
        fill: orderFill(state, market, result),
        now: ctx.now(),
      });
      // A fill the venue made later has the same effects as one made at once (trade.executed, the
      // buy's monitor, price alerts); the job id is the trade's, so a second close queues nothing.
      if (state.sharesMicro > 0) await queueLateFillEffects(ctx.deps, t._id);
    }
  }
  return state;
}

const ENDED_UNMATCHED: Refusal = {
  error: 'The order ended on the venue with nothing matched (cancelled or expired): nothing was spent.',
  errorCode: 'order_canceled',
  retryable: true,
  hint: 'Place a new order if you still want the position.',
  category: 'venue',
};
const NO_HOLDINGS = { balanceMicro: 0, sharesYesMicro: 0, sharesNoMicro: 0 };

/** Open trades synced per run; the oldest-synced go first, so every order gets its turn. */
const SYNC_BATCH = 200;

/**
 * The `sync-venue-orders` job: every open real-venue trade (a resting or delayed order) is looked
 * up on its venue; new matches are booked, finished orders close their trade; then every filled
 * trade still settling on chain is followed (venue-settlement.ts). A venue that cannot be reached
 * is left for the next run.
 */
export async function syncVenueOrders(deps: VenueTradingDeps): Promise<{
  synced: number;
  closed: number;
  failed: number;
  requeued: number;
  settlements: SettlementCounts;
}> {
  const ctx = tradeContext(deps);
  // Venues that say where an open order stands; the others follow theirs by other means.
  const synced = ctx.venues
    .all()
    .filter((v) => v.orderState)
    .map((v) => v.venue);
  const open = await deps.models.Trade.find({ venue: { $in: synced }, status: 'open' })
    .sort({ 'venueOrder.syncedAt': 1 })
    .limit(SYNC_BATCH)
    .lean();
  let closed = 0;
  let failed = 0;
  for (const t of open) {
    try {
      const state = await syncOpenTrade(ctx, t);
      if (state?.working === 'done') closed++;
    } catch (err) {
      failed++;
      if (!(err instanceof VenueHttpError)) deps.log.warn({ err, tradeId: t._id }, 'order sync failed');
    }
  }
  // Closes (Polymarket or Kalshi) whose fill's effects Redis did not take: queued again.
  const requeued = await requeueLateFillEffects(deps, ctx.now());
  // Filled trades whose matches the chain has yet to settle: confirmed, or rolled back if they failed.
  const settlements = await followSettlements(deps);
  return { synced: open.length, closed, failed, requeued, settlements };
}

/** `GET /api/sdk/orders/open`: the agent's orders still working on a venue. */
export async function listOpenOrders(deps: VenueTradingDeps, agent: AgentRecord) {
  const open = await deps.models.Trade.find({ agentId: agent._id, status: 'open' })
    .sort({ createdAt: -1 })
    .lean();
  const markets = await deps.models.Market.find(
    { _id: { $in: [...new Set(open.map((t) => t.marketId))] } },
    { question: 1, venueRef: 1 },
  ).lean();
  const byId = new Map(markets.map((m) => [m._id, m]));
  const orders = open.map((t) => {
    const m = byId.get(t.marketId);
    const vo = t.venueOrder!;
    const shares =
      t.action === 'sell'
        ? fromMicro(t.sharesMicro)
        : Math.round((t.amountMicro / 1e6 / vo.price) * 100) / 100;
    return {
      ...answeredOrderIds(t._id, vo.orderId, vo.signer),
      trade_id: t._id,
      market_id: t.marketId,
      question: m?.question ?? null,
      side: t.side,
      trade_type: t.action,
      shares,
      price: vo.price,
      cost_usdc: fromMicro(t.action === 'buy' ? t.amountMicro : Math.round(t.sharesMicro * vo.price)),
      shares_matched: fromMicro(vo.matchedSharesMicro),
      status: vo.status,
      venue: t.venue,
      source: t.source,
      // Skills tell their own orders apart by it (fast-loop, fast-scaler cancel only theirs).
      skill_slug: t.skillSlug,
      created_at: (t.createdAt as Date).toISOString(),
      ...conditionRefFields(m?.venueRef),
    };
  });
  return { orders, count: orders.length };
}

/**
 * Cancels open orders of the agent (all, one market's [one side], or one by id) on their venue and
 * syncs each trade at once, so a partly matched order keeps what matched and the rest is closed.
 */
export async function cancelOrders(
  deps: VenueTradingDeps,
  agent: AgentRecord,
  which: { orderId?: string; marketId?: string; side?: 'yes' | 'no' },
) {
  const filter: Record<string, unknown> = { agentId: agent._id, status: 'open' };
  if (which.marketId) filter.marketId = which.marketId;
  if (which.side) filter.side = which.side;
  let trades = await deps.models.Trade.find(filter).lean();
  if (which.orderId) {
    // The venue's order id, or the trade id trade() answered (what a skill that kept it holds, and
    // the `order_id` of an order the service signed).
    trades = trades.filter((t) => t.venueOrder?.orderId === which.orderId || t._id === which.orderId);
    if (!trades.length)
      throw notFound(
        'Open order',
        'List your open orders with GET /api/sdk/orders/open; filled or cancelled orders cannot be cancelled.',
      );
  }
  const ctx = tradeContext(deps);
  const canceled: string[] = [];
  const notCanceled: Record<string, string> = {};
  for (const t of trades) {
    const orderId = t.venueOrder?.orderId;
    if (!orderId) continue;
    // Named as the open-order rows name it (the trade id for an order the service signed).
    const named = answeredOrderIds(t._id, orderId, t.venueOrder!.signer).order_id!;
    const venue = ctx.venues.get(t.venue);
    if (!venue.cancel) {
      // E.g. a DFlow order is a landed Solana transaction: it fills or expires on its own within seconds.
      notCanceled[named] = `${t.venue} orders cannot be cancelled: they fill or expire by themselves`;
      continue;
    }
    try {
      const outcome = await venue.cancel(ctx, t, orderId);
      if (outcome.canceled) canceled.push(named);
      else notCanceled[named] = outcome.reason;
      await syncOpenTrade(ctx, t);
    } catch (err) {
      if (!(err instanceof VenueHttpError)) throw err;
      notCanceled[named] = `venue unavailable (${err.kind}); retry`;
    }
  }
  const failed = Object.keys(notCanceled).length;
  return {
    success: failed === 0,
    canceled,
    not_canceled: notCanceled,
    count: canceled.length,
    error: failed ? `${failed} order(s) could not be cancelled` : null,
  };
}
