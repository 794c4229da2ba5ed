import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { ReactorReactionRecord } from './reactor-reaction.model.js';
import type { ReactionInput } from './reactions.schemas.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ReactionsDeps = Pick<InfraDeps, 'clock'> & { models: Models };

const orNull = <T>(v: T | null | undefined): T | null => (v === undefined || v === '' ? null : v);

const reactionView = (r: ReactorReactionRecord & { _id: unknown }) => ({
  id: String(r._id),
  decision: r.decision,
  event_tx_hash: r.eventTxHash,
  taker_wallet: r.takerWallet,
  taker_side: r.takerSide,
  taker_token: r.takerToken,
  taker_price: r.takerPrice,
  taker_size: r.takerSize,
  condition_id: r.conditionId,
  market_title: r.marketTitle,
  market_slug: r.marketSlug,
  outcome: r.outcome,
  trade_id: r.tradeId,
  reason: r.reason,
  created_at: r.createdAt.toISOString(),
});

/** `POST /api/sdk/reactor/reactions`: one entry of the agent's journal, as its skill reported it. */
export async function recordReaction(deps: ReactionsDeps, agentId: string, input: ReactionInput) {
  const created = await deps.models.ReactorReaction.create({
    agentId,
    decision: input.decision,
    eventTxHash: orNull(input.event_tx_hash),
    takerWallet: orNull(input.taker_wallet?.toLowerCase()),
    takerSide: orNull(input.taker_side),
    takerToken: orNull(input.taker_token),
    takerPrice: orNull(input.taker_price),
    takerSize: orNull(input.taker_size),
    conditionId: orNull(input.condition_id),
    marketTitle: orNull(input.market_title),
    marketSlug: orNull(input.market_slug),
    outcome: orNull(input.outcome),
    tradeId: orNull(input.trade_id),
    reason: orNull(input.reason),
    createdAt: deps.clock(),
  });
  return { success: true, reaction: reactionView(created.toObject()) };
}

/** `GET /api/sdk/reactor/reactions?limit`: the agent's latest reactions, newest first (the skill's circuit breaker reads them so). */
export async function listReactions(deps: ReactionsDeps, agentId: string, limit: number) {
  const rows = await deps.models.ReactorReaction.find({ agentId })
    .sort({ createdAt: -1, _id: -1 })
    .limit(limit)
    .lean();
  return { reactions: rows.map(reactionView), count: rows.length };
}
