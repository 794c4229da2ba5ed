import { AppError, notFound } from '../../infra/errors.js';
import type { Models } from '../models.js';
import { MICRO, fromMicro } from '../money.js';
import { accept, refuse } from '../refusal.js';
import { appendMarketEvent } from './market-log.js';
import { decided, resolutionLabel, yesPayoutMicro, type Resolution } from './resolution.js';

/**
 * Resolves a market once, as an event of its log (so it is ordered against every fill: no trade
 * can fill after it). `resolution` is an outcome (true YES, false NO) or what a YES share pays
 * (resolution.ts: a 50-50 void, a scalar result). Resolving again the same way is a no-op;
 * another way is a 409.
 */
export async function resolveMarket(
  models: Models,
  marketId: string,
  resolution: boolean | Resolution,
  now: () => Date,
) {
  const want = typeof resolution === 'boolean' ? decided(resolution) : resolution;
  const market = await models.Market.findById(marketId, { _id: 1 }).lean();
  if (!market) throw notFound('Market', 'Use the service market_id (a UUID) from GET /api/sdk/markets.');
  const result = await appendMarketEvent(
    models,
    marketId,
    `resolve-${marketId}`,
    (m) =>
      m.status === 'resolved'
        ? refuse({
            error: 'Market is already resolved',
            errorCode: 'already_resolved',
            retryable: false,
            category: 'market',
          })
        : accept({
            kind: 'resolve',
            side: null,
            action: null,
            sharesMicro: 0,
            amountMicro: 0,
            priceBefore: m.currentPrice,
            priceAfter: fromMicro(want.payoutYesMicro),
            outcome: want.outcome,
            payoutYesMicro: want.payoutYesMicro,
          }),
    now,
  );
  const resolved = await models.Market.findById(marketId, {
    status: 1,
    outcome: 1,
    payoutYesMicro: 1,
    resolvedAt: 1,
  }).lean();
  if (result.refusal || !resolved || yesPayoutMicro(resolved) !== want.payoutYesMicro) {
    throw new AppError(
      409,
      'already_resolved',
      `Market already resolved ${resolved ? resolutionLabel(resolved) : ''}`.trim(),
      'A resolution is final; nothing to do.',
      {
        body: {
          outcome: resolved?.outcome ?? null,
          resolved_at: resolved?.resolvedAt?.toISOString() ?? null,
        },
      },
    );
  }
  return {
    market_id: marketId,
    status: 'resolved' as const,
    outcome: want.outcome,
    /** What one share of each side pays (1/0, or 0.5/0.5 for a void resolution). */
    payout_per_share: { yes: fromMicro(want.payoutYesMicro), no: fromMicro(MICRO - want.payoutYesMicro) },
    resolved_at: resolved.resolvedAt!.toISOString(),
  };
}
