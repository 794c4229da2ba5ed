import { afterWrite } from '../../infra/faults.js';
import { MICRO, fromMicro } from '../money.js';
import { appendToStream, rollForwardStream, type SequencedLog } from '../sequenced-log/sequenced-log.js';
import type { Decision, Refusal } from '../refusal.js';
import type { MarketEventModel, MarketEventRecord } from './market-event.model.js';
import type { MarketModel, MarketRecord } from './market.model.js';

/** The book's LMSR state belongs to the sim venue; kept importable from here too. */
export { bookState } from './sim-book.js';

export interface MarketLogModels {
  Market: MarketModel;
  MarketEvent: MarketEventModel;
}

export type MarketEventDraft = Omit<MarketEventRecord, '_id' | 'marketId' | 'seq' | 'at'>;

/** A `resolve` event's YES payout (events logged before it was recorded carry only the outcome). */
export const resolvedPayoutMicro = (e: Pick<MarketEventRecord, 'outcome' | 'payoutYesMicro'>) =>
  e.payoutYesMicro ?? (e.outcome ? MICRO : 0);

/** What one logged event changes on the market document (besides the book version). */
export function eventUpdate(next: MarketEventRecord) {
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
          payoutYesMicro: resolvedPayoutMicro(next),
          currentPrice: fromMicro(resolvedPayoutMicro(next)),
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

/** The market's book as a sequenced log: head = the market document, `book.version` its sequence. */
const marketLog = (models: MarketLogModels): SequencedLog<MarketRecord, MarketEventRecord> => ({
  name: 'market',
  log: models.MarketEvent,
  streamField: 'marketId',
  readHead: (id) => models.Market.findById(id).lean() as Promise<MarketRecord | null>,
  seqOf: (m) => m.book.version,
  apply: (e) => applyMarketEvent(models, e),
});

/** Brings the market document up to date with its log (after a crash between an append and its apply). */
export async function rollForwardMarket(models: MarketLogModels, marketId: string): Promise<void> {
  await rollForwardStream(marketLog(models), marketId);
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
  const result = await appendToStream(marketLog(models), marketId, eventId, (market) => {
    const decision = decide(market);
    return decision.ok
      ? { ok: true, event: { ...decision.value, marketId, at: now() }, extra: undefined }
      : { ok: false, refusal: decision.refusal };
  });
  return result.event ? { event: result.event } : { refusal: result.refusal! };
}
