import {
  outcomePricesText,
  type TapeMarketRow,
  type TapePrintRow,
} from '../../shared/domains/tapes/tape-columns.js';

/** A store market row of an open 50/50 market; `fields` name what a test cares about. */
export const tapeMarketRow = (
  fields: Pick<TapeMarketRow, 'source' | 'id'> & Partial<TapeMarketRow>,
): TapeMarketRow => ({
  question: 'Q?',
  slug: 'q',
  condition_id: `0x${fields.id}`,
  token1: `${fields.id}-yes`,
  token2: `${fields.id}-no`,
  answer1: 'Yes',
  answer2: 'No',
  closed: 0,
  active: 1,
  archived: 0,
  outcome_prices: outcomePricesText(0.5, 0.5),
  volume: 0,
  event_id: null,
  event_slug: null,
  event_title: null,
  created_at: new Date().toISOString(),
  end_date: null,
  updated_at: new Date().toISOString(),
  neg_risk: 0,
  ...fields,
});

/** A store print row (a BUY of 10 USD at 0.5 by nobody named); `fields` name what a test cares about. */
export const tapePrintRow = (
  fields: Pick<TapePrintRow, 'source' | 'print_id' | 'market_id' | 'timestamp'> & Partial<TapePrintRow>,
): TapePrintRow => ({
  block_number: null,
  transaction_hash: null,
  log_index: null,
  condition_id: `0x${fields.market_id}`,
  event_id: null,
  price: 0.5,
  usd_amount: 10,
  token_amount: 20,
  side: 'BUY',
  maker: null,
  taker: null,
  ...fields,
});
