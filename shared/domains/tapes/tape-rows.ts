import { createHash } from 'node:crypto';
import type { MarketRecord } from '../markets/market.model.js';
import type { MarketEventRecord } from '../markets/market-event.model.js';
import type { VenuePrint } from '../venues/venue-adapter.js';
import { outcomePricesText, type TapeMarketRow, type TapePrintRow } from './tape-columns.js';
import { POOL_VENUE } from '../venues/venue-id.js';

/** The market's maker on sim: our LMSR book, the counterparty of every sim fill. */
export const SIM_MAKER = 'sim-lmsr';

/** What the recorder reads of a market. */
export type TapeMarketSource = Pick<
  MarketRecord,
  | '_id'
  | 'question'
  | 'status'
  | 'importSource'
  | 'currentPrice'
  | 'externalPriceYes'
  | 'outcome'
  | 'resolvedAt'
  | 'resolvesAt'
  | 'volumeTotalMicro'
  | 'eventId'
  | 'eventRef'
  | 'eventName'
  | 'venueRef'
  | 'venueSlug'
  | 'createdAt'
>;

export const TAPE_MARKET_FIELDS = {
  question: 1,
  status: 1,
  importSource: 1,
  currentPrice: 1,
  externalPriceYes: 1,
  outcome: 1,
  resolvedAt: 1,
  resolvesAt: 1,
  volumeTotalMicro: 1,
  eventId: 1,
  eventRef: 1,
  eventName: 1,
  venueRef: 1,
  venueSlug: 1,
  createdAt: 1,
} as const;

/** The YES price a tape shows for the market: its resolution once resolved, else its price now. */
function yesPriceOf(m: TapeMarketSource): number {
  if (m.status === 'resolved') return m.outcome === null ? 0.5 : m.outcome ? 1 : 0;
  return m.externalPriceYes ?? m.currentPrice;
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
const ticks = (p: number) => Math.round(p * 10_000) / 10_000;

/** Our own slug for markets that have none on a venue (sim): readable and unique. */
const simSlug = (m: TapeMarketSource) =>
  `${m.question
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60)}-${m._id.slice(-6).toLowerCase()}`;

/** One market as a tape row. `id` is our market id on every source, as agents trade it. */
export function tapeMarketRow(m: TapeMarketSource, source: string, now: Date): TapeMarketRow {
  const yes = yesPriceOf(m);
  const ref = m.venueRef;
  return {
    source,
    id: m._id,
    question: m.question,
    slug: m.venueSlug ?? simSlug(m),
    condition_id: ref?.externalId ?? m._id,
    token1: ref?.yesTokenId ?? `${m._id}-yes`,
    token2: ref?.noTokenId ?? `${m._id}-no`,
    answer1: 'Yes',
    answer2: 'No',
    closed: m.status === 'active' ? 0 : 1,
    active: m.status === 'active' ? 1 : 0,
    archived: 0,
    outcome_prices: outcomePricesText(yes, 1 - yes),
    volume: m.volumeTotalMicro / 1e6,
    event_id: m.eventId,
    event_slug: m.eventRef,
    event_title: m.eventName,
    created_at: iso(m.createdAt),
    end_date: iso(m.resolvedAt ?? m.resolvesAt),
    updated_at: now.toISOString(),
    neg_risk: ref?.negRisk ? 1 : 0,
  };
}

/**
 * What of a market row matters to a tape, hashed: the row is written again only when this changes
 * (its status, resolution, price to the tick, or volume by a tenth), not at every trade.
 */
export function marketFingerprint(m: TapeMarketSource): string {
  const volumeStep = m.volumeTotalMicro > 0 ? Math.floor(Math.log(m.volumeTotalMicro) / Math.log(1.1)) : -1;
  return createHash('sha256')
    .update(
      JSON.stringify([
        m.question,
        m.status,
        m.outcome,
        iso(m.resolvedAt ?? m.resolvesAt),
        ticks(yesPriceOf(m)),
        volumeStep,
        m.venueSlug,
        m.eventId,
      ]),
    )
    .digest('hex')
    .slice(0, 16);
}

/**
 * A sim fill as a print: the taker is the agent (pseudonymised), the maker our LMSR book; the side
 * and price are on YES (buying NO is selling YES at one minus the price).
 */
export function simFillPrint(
  e: Pick<MarketEventRecord, '_id' | 'marketId' | 'side' | 'action' | 'sharesMicro' | 'amountMicro' | 'at'>,
  eventId: string | null,
  taker: string | null,
): TapePrintRow | null {
  if (!e.sharesMicro || !e.side || !e.action) return null;
  const avg = e.amountMicro / e.sharesMicro;
  const buysYes = (e.side === 'yes') === (e.action === 'buy');
  return {
    source: POOL_VENUE,
    print_id: e._id,
    timestamp: Math.floor(e.at.getTime() / 1000),
    block_number: null,
    transaction_hash: null,
    log_index: null,
    market_id: e.marketId,
    condition_id: e.marketId,
    event_id: eventId,
    price: e.side === 'yes' ? avg : 1 - avg,
    usd_amount: e.amountMicro / 1e6,
    token_amount: e.sharesMicro / 1e6,
    side: buysYes ? 'BUY' : 'SELL',
    maker: SIM_MAKER,
    taker,
  };
}

/** A venue's public print of an imported market as a tape row. */
export function venuePrintRow(
  p: VenuePrint,
  source: string,
  m: Pick<TapeMarketSource, '_id' | 'eventId' | 'venueRef'>,
): TapePrintRow {
  return {
    source,
    print_id: p.id,
    timestamp: p.timestamp,
    block_number: p.blockNumber,
    transaction_hash: p.transactionHash,
    log_index: p.logIndex,
    market_id: m._id,
    condition_id: m.venueRef?.externalId ?? m._id,
    event_id: m.eventId,
    price: p.yesPrice,
    usd_amount: p.usd,
    token_amount: p.shares,
    side: p.side,
    maker: p.maker,
    taker: p.taker,
  };
}
