import { afterWrite } from '../../infra/faults.js';
import type { Decision, Refusal } from '../refusal.js';
import { isDuplicateKey } from '../refusal.js';
import { MICRO } from '../money.js';
import type { LmsrState } from '../venues/sim/lmsr.js';
import type { MarketEventModel, MarketEventRecord } from './market-event.model.js';
import type { MarketModel, MarketRecord } from './market.model.js';

export interface MarketLogModels {
  Market: MarketModel;
  MarketEvent: MarketEventModel;
}

export type MarketEventDraft = Omit<MarketEventRecord, '_id' | 'marketId' | 'seq' | 'at'>;

/** The LMSR state of a market's book: the anchor plus every applied fill. */
export function bookState(market: Pick<MarketRecord, 'book'>): LmsrState {
  const { b, q0Yes, q0No, yesMicro, noMicro } = market.book;
  return { b, qYes: q0Yes + yesMicro / MICRO, qNo: q0No + noMicro / MICRO };
}

/**
 * Applies every logged event the market document has not seen yet, in order. Idempotent and safe to
 * run from any number of workers at once: each step is guarded by the book version it starts from.
 */
export async function rollForwardMarket(models: MarketLogModels, marketId: string): Promise<void> {
  for (;;) {
    const market = await models.Market.findById(marketId, { 'book.version': 1 }).lean();
    if (!market) return;
    const next = await models.MarketEvent.findOne({ marketId, seq: market.book.version + 1 }).lean();
    if (!next) return;
    const update =
      next.kind === 'fill'
        ? {
            $inc: {
              [next.side === 'yes' ? 'book.yesMicro' : 'book.noMicro']:
                next.action === 'buy' ? next.sharesMicro : -next.sharesMicro,
              volume24hMicro: next.amountMicro,
              volumeTotalMicro: next.amountMicro,
            },
            $set: { 'book.version': next.seq, currentPrice: next.priceAfter, lastTradeAt: next.at },
          }
        : {
            $set: {
              'book.version': next.seq,
              status: 'resolved',
              resolvedAt: next.at,
              outcome: next.outcome,
              currentPrice: next.outcome ? 1 : 0,
            },
          };
    await models.Market.updateOne({ _id: marketId, 'book.version': next.seq - 1 }, update);
    afterWrite();
  }
}

/**
 * Appends event `eventId` to the market's log, deciding its content from the market exactly as of
 * the previous event. Returns the logged event (an existing one if this id was logged before: a
 * retry never logs twice) or the refusal `decide` gave.
 */
export async function appendMarketEvent(
  models: MarketLogModels,
  marketId: string,
  eventId: string,
  decide: (market: MarketRecord) => Decision<MarketEventDraft>,
  now: () => Date,
): Promise<{ event: MarketEventRecord; refusal?: undefined } | { event?: undefined; refusal: Refusal }> {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const existing = await models.MarketEvent.findById(eventId).lean();
    if (existing) {
      await rollForwardMarket(models, marketId);
      return { event: existing };
    }
    await rollForwardMarket(models, marketId);
    const market = await models.Market.findById(marketId).lean();
    if (!market) throw new Error(`market ${marketId} vanished`);
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
      await models.MarketEvent.create(event);
      afterWrite();
    } catch (err) {
      // Another writer took this sequence number (or this event was logged meanwhile): start over
      // from the newer state. Jitter spreads contending writers apart.
      if (!isDuplicateKey(err)) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 + attempt)));
      continue;
    }
    await rollForwardMarket(models, marketId);
    return { event };
  }
  throw new Error(`could not append to the log of market ${marketId}: too much contention`);
}
