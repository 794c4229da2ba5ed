import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { MICRO, fromMicro } from '../money.js';
import { yesPayoutMicro } from '../markets/resolution.js';
import { emitWebhookEvent, emitWebhookEvents } from './webhooks.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type EventsDeps = Pick<InfraDeps, 'env' | 'queues' | 'clock'> & { models: Models };

type EmitDeps = Pick<EventsDeps, 'models' | 'queues' | 'env' | 'clock'>;

/** A trade whose fill is recorded (status `filled`, read back from the database): only a durable fill is announced. */
export const filledTrade = async (deps: Pick<EventsDeps, 'models'>, tradeId: string) => {
  const t = await deps.models.Trade.findOne({ _id: tradeId, status: 'filled' }).lean();
  return t?.fill ? t : null;
};

/** `filledTrade` for many trades in one read: the filled ones, by id. */
export const filledTrades = async (deps: Pick<EventsDeps, 'models'>, tradeIds: string[]) => {
  const found = await deps.models.Trade.find({ _id: { $in: tradeIds }, status: 'filled' }).lean();
  return new Map(found.filter((t) => t.fill).map((t) => [t._id, t]));
};

/** What every trade event names of its trade. */
const tradeFields = (t: TradeOfEvent) => ({
  trade_id: t._id,
  agent_id: t.agentId,
  market_id: t.marketId,
  venue: t.venue,
  side: t.side,
  action: t.action,
});

/** The trade fields the trade events read (a trade record has them all). */
interface TradeOfEvent {
  _id: string;
  agentId: string;
  marketId: string;
  venue: string;
  side: string;
  action: string;
  source: string | null;
  skillSlug: string | null;
}

/** `trade.executed` for a filled trade. The event id is the trade's: emitting again is a no-op. */
export function announceTradeExecuted(deps: EmitDeps, t: FilledTrade) {
  return emitWebhookEvent(deps, [t.agentId], tradeExecutedEvent(deps, t));
}

/** `announceTradeExecuted` for many fills at once (one read of the webhooks and bridges); answers in order. */
export function announceTradesExecuted(deps: EmitDeps, trades: FilledTrade[]) {
  return emitWebhookEvents(
    deps,
    trades.map((t) => ({ agentIds: [t.agentId], event: tradeExecutedEvent(deps, t) })),
  );
}

type FilledTrade = NonNullable<Awaited<ReturnType<typeof filledTrade>>>;

const tradeExecutedEvent = (deps: Pick<EmitDeps, 'clock'>, t: FilledTrade) => ({
  type: 'trade.executed' as const,
  id: `trade.executed.${t._id}`,
  data: {
    ...tradeFields(t),
    shares: fromMicro(t.fill!.sharesMicro ?? 0),
    amount: fromMicro(t.fill!.amountMicro ?? 0),
    price_before: t.fill!.priceBefore ?? null,
    price_after: t.fill!.priceAfter ?? null,
    source: t.source,
    skill_slug: t.skillSlug,
    executed_at: (t.finishedAt ?? deps.clock()).toISOString(),
  },
});

/** `trade.executed` for a trade by id, if its fill is recorded. */
export async function emitTradeExecuted(deps: EmitDeps, tradeId: string) {
  const t = await filledTrade(deps, tradeId);
  return t ? announceTradeExecuted(deps, t) : { queued: 0, webhook_ids: [] };
}

/** What a venue's chain reverted of a trade's match (trading/venue-settlement.ts). */
export interface FailedMatch {
  sharesMicro: number;
  amountMicro: number;
  /** The whole match failed (the trade is `failed`), or only part of it (the trade keeps the rest). */
  whole: boolean;
  reason: string;
  failedAt: Date;
}

/**
 * `trade.failed` for a trade whose match the venue's chain reverted, after its booking was rolled
 * back. The event id is the trade's: emitting again is a no-op.
 */
export function emitTradeFailed(
  deps: EmitDeps,
  t: TradeOfEvent & { venueOrder: { orderId: string | null } | null },
  failed: FailedMatch,
) {
  return emitWebhookEvent(deps, [t.agentId], {
    type: 'trade.failed',
    id: `trade.failed.${t._id}`,
    data: {
      ...tradeFields(t),
      order_id: t.venueOrder?.orderId ?? null,
      shares: fromMicro(failed.sharesMicro),
      amount: fromMicro(failed.amountMicro),
      whole: failed.whole,
      error_code: 'settlement_failed',
      failure_reason: failed.reason,
      source: t.source,
      skill_slug: t.skillSlug,
      failed_at: failed.failedAt.toISOString(),
    },
  });
}

/**
 * `market.resolved` for a resolved market, to the agents holding (or having held) a position in it.
 * The event id is the market's: the settlement job may run several times, the event goes out once.
 */
export async function emitMarketResolved(deps: EmitDeps, marketId: string) {
  const market = await deps.models.Market.findById(marketId, {
    status: 1,
    outcome: 1,
    payoutYesMicro: 1,
    question: 1,
    resolvedAt: 1,
  }).lean();
  const payoutYes = market && yesPayoutMicro(market);
  if (!market || payoutYes === null) return { queued: 0, webhook_ids: [] };
  const agentIds = (await deps.models.Position.distinct('agentId', { marketId })) as string[];
  return emitWebhookEvent(deps, agentIds, {
    type: 'market.resolved',
    id: `market.resolved.${marketId}`,
    data: {
      market_id: marketId,
      question: market.question,
      // null when neither side won (void / 50-50): then each share pays what payout_per_share says.
      outcome: market.outcome,
      payout_per_share: { yes: fromMicro(payoutYes), no: fromMicro(MICRO - payoutYes) },
      resolved_at: market.resolvedAt?.toISOString() ?? null,
    },
  });
}
