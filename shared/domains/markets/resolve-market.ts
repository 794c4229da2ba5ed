import { AppError, notFound } from '../../infra/errors.js';
import type { Models } from '../models.js';
import { accept, refuse } from '../refusal.js';
import { appendMarketEvent } from './market-log.js';

/**
 * Resolves a market once, as an event of its log (so it is ordered against every fill: no trade
 * can fill after it). Resolving again with the same outcome is a no-op; another outcome is a 409.
 */
export async function resolveMarket(models: Models, marketId: string, outcome: boolean, now: () => Date) {
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
            priceAfter: outcome ? 1 : 0,
            outcome,
          }),
    now,
  );
  const resolved = await models.Market.findById(marketId, { status: 1, outcome: 1, resolvedAt: 1 }).lean();
  if (result.refusal || resolved?.outcome !== outcome) {
    throw new AppError(
      409,
      'already_resolved',
      `Market already resolved as ${resolved?.outcome ? 'YES' : 'NO'}`,
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
    outcome,
    resolved_at: resolved!.resolvedAt!.toISOString(),
  };
}
