import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { VenueRegistry } from '../venues/venue-registry.js';
import { enqueueAlertEvaluation } from '../alerts/evaluate-price-alerts.js';
import { VenueHttpError } from '../../infra/http/venue-http-error.js';
import { appendMarketEvent, bookState } from '../markets/market-log.js';
import { accept, refuse } from '../refusal.js';
import { reanchor } from '../markets/reanchor.js';
import type { VenueQuote } from '../venues/venue-adapter.js';
import { externalVenueIds } from '../venues/venue-id.js';
import { venueKey } from '../markets/venue-key.js';
import { importedBatches, type SyncedMarket } from './imported-batches.js';
import { detectShocks } from '../shock-ladder/detect-shocks.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type SyncExternalPricesDeps = Pick<InfraDeps, 'env' | 'log' | 'queues' | 'clock' | 'redis'> & {
  models: Models;
  venues: VenueRegistry;
};

export interface PriceSyncReport {
  venue: string;
  markets: number;
  quoted: number;
  reanchored: number;
  /** Shocks the detector found among the venue's sports markets (shock-ladder/detect-shocks.ts). */
  shocks: number;
  error: string | null;
}

/**
 * Re-anchors the book to the venue price as one logged event; a retry of the tick logs nothing new.
 * When the book is already there (less than half a tick away) nothing is logged, but the anchoring
 * time and price are still recorded, outside the log (fills and quotes never read them), so the
 * half-life counts from now.
 */
async function reanchorBook(
  deps: SyncExternalPricesDeps,
  m: SyncedMarket,
  quote: VenueQuote,
  tickId: string,
): Promise<boolean> {
  const now = deps.clock();
  let unchanged: { version: number } | null = null;
  const result = await appendMarketEvent(
    deps.models,
    m._id,
    `anchor-${m._id}-${tickId}`,
    (market) => {
      if (market.status !== 'active')
        return refuse({
          error: 'Market is not open',
          errorCode: 'market_closed',
          retryable: false,
          category: 'market',
        });
      const anchoredAt = market.book.anchoredAt ?? market.createdAt ?? now;
      // At most two sync intervals count: a stopped service catches up gradually.
      const maxElapsed = 2 * deps.env.EXTERNAL_PRICE_SECONDS * 1000;
      const elapsed = Math.min(maxElapsed, now.getTime() - new Date(anchoredAt).getTime());
      const move = reanchor(
        bookState(market),
        quote.yesPrice,
        market.book.anchorPrice ?? null,
        elapsed,
        deps.env.REANCHOR_HALF_LIFE_SECONDS * 1000,
      );
      if (Math.abs(move.priceAfter - move.priceBefore) < market.tickSize / 2) {
        unchanged = { version: market.book.version };
        return refuse({ error: 'No move', errorCode: 'no_move', retryable: false, category: 'market' });
      }
      return accept({
        kind: 'anchor',
        side: null,
        action: null,
        sharesMicro: 0,
        amountMicro: 0,
        priceBefore: move.priceBefore,
        priceAfter: move.priceAfter,
        outcome: null,
        q0Yes: market.book.q0Yes + move.deltaQ0Yes,
        anchorPrice: quote.yesPrice,
      });
    },
    deps.clock,
  );
  if (unchanged)
    await deps.models.Market.updateOne(
      { _id: m._id, 'book.version': (unchanged as { version: number }).version },
      { $set: { 'book.anchoredAt': now, 'book.anchorPrice': quote.yesPrice } },
    );
  if (result.event) await enqueueAlertEvaluation(deps, m._id, `anchor-${result.event.seq}`);
  return Boolean(result.event);
}

/**
 * The `sync-external-prices` job: for every open imported market, the venue's top of book is stored
 * (`external_price`, spread, best bid/ask) and the sim book drifts toward it. A venue that fails
 * keeps its last good prices: the error is logged and counted by the client, the job goes on with
 * the next venue, and the next tick tries again (the circuit breaker keeps it from hammering).
 */
export async function syncExternalPrices(
  deps: SyncExternalPricesDeps,
  tickId: string,
): Promise<PriceSyncReport[]> {
  const reports: PriceSyncReport[] = [];
  for (const venueId of externalVenueIds()) {
    if (!deps.venues.has(venueId)) continue;
    const venue = deps.venues.get(venueId);
    const report: PriceSyncReport = {
      venue: venueId,
      markets: 0,
      quoted: 0,
      reanchored: 0,
      shocks: 0,
      error: null,
    };
    reports.push(report);
    try {
      for await (const batch of importedBatches(deps.models, venueId, ['active'])) {
        report.markets += batch.length;
        const quotes = await venue.quotes(batch.map(venueKey));
        const now = deps.clock();
        const writes = [];
        for (const m of batch) {
          const q = quotes.get(venueKey(m).externalId);
          if (!q) continue;
          report.quoted++;
          writes.push({
            updateOne: {
              filter: { _id: m._id },
              update: {
                $set: {
                  externalPriceYes: q.yesPrice,
                  externalBestBid: q.bestBid,
                  externalBestAsk: q.bestAsk,
                  externalSpread: q.spread,
                  externalQuotedAt: now,
                },
              },
            },
          });
        }
        if (writes.length) await deps.models.Market.bulkWrite(writes, { ordered: false });
        report.shocks += await detectShocks(deps, venueId, batch, (m) => quotes.get(venueKey(m).externalId));
        for (const m of batch) {
          const q = quotes.get(venueKey(m).externalId);
          if (q && (await reanchorBook(deps, m, q, tickId))) report.reanchored++;
        }
      }
    } catch (err) {
      if (!(err instanceof VenueHttpError)) throw err;
      report.error = err.message;
      deps.log.warn(
        { venue: venueId, kind: err.kind, err: err.message },
        'price sync failed; last good prices kept',
      );
    }
  }
  return reports;
}
