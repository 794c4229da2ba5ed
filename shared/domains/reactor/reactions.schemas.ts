import { z } from 'zod';
import { REACTION_DECISIONS } from './reactor-reaction.model.js';

const text = (max: number) => z.string().max(max).nullish();

/**
 * `POST /api/sdk/reactor/reactions` (client-contract §12.1), as the copytrading skill sends it after
 * each signal: every field but `decision` may be empty or null. Fields it does not know are ignored
 * (a newer skill may send more).
 */
export const ReactionInputSchema = z.object({
  decision: z.enum(REACTION_DECISIONS).meta({
    description:
      'What the skill did: `mirrored` / `executed` (traded), `skipped`, `failed` (the circuit breaker counts these).',
  }),
  event_tx_hash: text(100),
  taker_wallet: text(100),
  taker_side: text(10),
  taker_token: text(100),
  taker_price: z.number().min(0).max(1_000_000).nullish(),
  taker_size: z.number().min(0).max(1e12).nullish(),
  condition_id: text(100),
  market_title: text(500),
  market_slug: text(300),
  outcome: text(200),
  trade_id: text(100),
  reason: text(1000),
});
export type ReactionInput = z.output<typeof ReactionInputSchema>;

export const ReactionSchema = z
  .object({
    id: z.string(),
    decision: z.enum(REACTION_DECISIONS),
    event_tx_hash: z.string().nullable(),
    taker_wallet: z.string().nullable(),
    taker_side: z.string().nullable(),
    taker_token: z.string().nullable(),
    taker_price: z.number().nullable(),
    taker_size: z.number().nullable(),
    condition_id: z.string().nullable(),
    market_title: z.string().nullable(),
    market_slug: z.string().nullable(),
    outcome: z.string().nullable(),
    trade_id: z.string().nullable(),
    reason: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'ReactorReaction' });
