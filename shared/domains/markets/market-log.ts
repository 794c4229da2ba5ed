import { afterWrite } from '../../infra/faults.js';
import type { Decision, Refusal } from '../refusal.js';
import { isDuplicateKey } from '../refusal.js';
import type { MarketEventModel, MarketEventRecord } from './market-event.model.js';
import type { MarketModel, MarketRecord } from './market.model.js';

/** The book's LMSR state belongs to the sim venue; kept importable from here too. */
export { bookState } from '../venues/sim/sim-book.js';

export interface MarketLogModels {
  Market: MarketModel;
  MarketEvent: MarketEventModel;
}

export type MarketEventDraft = Omit<MarketEventRecord, '_id' | 'marketId' | 'seq' | 'at'>;

/** What one logged event changes on the market document (besides the book version). */
function eventUpdate(next: MarketEventRecord) {
  const version = { 'book.version': next.seq };
  switch (next.kind) {
    case 'fill':
      return {
        $inc: {
          [next.side === 'yes' ? 'book.yesMicro' : 'book.noMicro']:
            next.action === 'buy' ? next.sharesMicro : -next.sharesMicro,
          volume24hMicro: next.amountMicro,
          volumeTotalMicro: next.amountMicro,
        },
        $set: { ...version, currentPrice: next.priceAfter, lastTradeAt: next.at },
      };
    case 'resolve':
      return {
        $set: {
          ...version,
          status: 'resolved',
          resolvedAt: next.at,
          outcome: next.outcome,
          currentPrice: next.outcome ? 1 : 0,
        },
      };
    case 'anchor':
      // The anchor follows the venue price; the fills (yesMicro/noMicro) are untouched.
      return {
        $set: {
          ...version,
          'book.q0Yes': next.q0Yes,
          'book.anchoredAt': next.at,
          'book.anchorPrice': next.anchorPrice,
          currentPrice: next.priceAfter,
        },
      };
    case 'close':
      return { $set: { ...version, status: 'closed', isOrderbookOpen: false } };
  }
}

/** Applies one logged event to the market document; a no-op unless the book is exactly one event behind. */
async function applyMarketEvent(models: MarketLogModels, next: MarketEventRecord): Promise<void> {
  const update = eventUpdate(next);
  const result = await models.Market.updateOne({ _id: next.marketId, 'book.version': next.seq - 1 }, update);
  afterWrite(result.matchedCount > 0);
}

/**
 * Reads the market and, in the same round trip to the log, the events it has not applied yet (and
 * event `eventId`, if given). Applies the unapplied ones in order; returns the market as read and
 * whether it was behind (then read again before deciding anything).
 */
async function readMarket(models: MarketLogModels, marketId: string, eventId?: string) {
  const market = await models.Market.findById(marketId).lean();
  if (!market) throw new Error(`market ${marketId} not found`);
  const conditions: Record<string, unknown>[] = [{ marketId, seq: { $gt: market.book.version } }];
  if (eventId) conditions.push({ _id: eventId });
  const events = await models.MarketEvent.find({ $or: conditions }).sort({ seq: 1 }).lean();
  const unapplied = events.filter((e) => e.marketId === marketId && e.seq > market.book.version);
  for (const e of unapplied) await applyMarketEvent(models, e);
  return {
    market,
    behind: unapplied.length > 0,
    mine: eventId ? events.find((e) => e._id === eventId) : undefined,
  };
}

/** Brings the market document up to date with its log (after a crash between an append and its apply). */
export async function rollForwardMarket(models: MarketLogModels, marketId: string): Promise<void> {
  while ((await readMarket(models, marketId)).behind);
}

/**
 * Appends event `eventId` to the market's log, deciding its content from the market exactly as of
 * the previous event, and applies it. Returns the logged event (an existing one if this id was
 * logged before: a retry never logs twice) or the refusal `decide` gave.
 */
export async function appendMarketEvent(
  models: MarketLogModels,
  marketId: string,
  eventId: string,
  decide: (market: MarketRecord) => Decision<MarketEventDraft>,
  now: () => Date,
): Promise<{ event: MarketEventRecord; refusal?: undefined } | { event?: undefined; refusal: Refusal }> {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const { market, behind, mine } = await readMarket(models, marketId, eventId);
    if (mine && !behind) return { event: mine };
    if (behind || mine) continue;
    const decision = decide(market);
    if (!decision.ok) return { refusal: decision.refusal };
    const event: MarketEventRecord = {
      ...decision.value,
      _id: eventId,
      marketId,
      seq: market.book.version + 1,
      at: now(),
    };
    try {
      await models.MarketEvent.collection.insertOne(event as never);
      afterWrite();
    } catch (err) {
      // Another writer took this sequence number (or logged this very event): start over from the
      // newer state. Jitter spreads contending writers apart.
      if (!isDuplicateKey(err)) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(20, 1 + attempt)));
      continue;
    }
    await applyMarketEvent(models, event);
    return { event };
  }
  throw new Error(`could not append to the log of market ${marketId}: too much contention`);
}
