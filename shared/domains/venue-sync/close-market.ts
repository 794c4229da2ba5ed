import type { Models } from '../models.js';
import { appendMarketEvent } from '../markets/market-log.js';
import { accept, refuse } from '../refusal.js';

/**
 * Stops trading on a market as an event of its log, so no fill can land after it: the venue closed
 * it, or a sim market reached its resolution time. It then waits, `closed`, for its resolution.
 * Closing twice is a no-op.
 */
export async function closeMarket(models: Models, marketId: string, now: () => Date): Promise<boolean> {
  const result = await appendMarketEvent(
    models,
    marketId,
    `close-${marketId}`,
    (m) =>
      m.status !== 'active'
        ? refuse({
            error: 'Market is not open',
            errorCode: 'market_closed',
            retryable: false,
            category: 'market',
          })
        : accept({
            kind: 'close',
            side: null,
            action: null,
            sharesMicro: 0,
            amountMicro: 0,
            priceBefore: m.currentPrice,
            priceAfter: m.currentPrice,
            outcome: null,
          }),
    now,
  );
  return Boolean(result.event);
}
