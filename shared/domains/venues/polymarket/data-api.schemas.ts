import { z } from 'zod';
import { idString, infoNumeric, numeric } from './wire-primitives.js';

/**
 * Data API positions (reference §7). Today's `GET /positions` answers a bare array of camelCase
 * rows with JSON numbers; the newest official SDK also reads a snake_case shape in a
 * `{data, pagination}` envelope. Both are accepted and normalised to one row type, so the adapter
 * keeps working whichever surface answers.
 */

/** One wallet position, normalised. Sizes are shares, prices per share in [0, 1]. */
export interface PolymarketPosition {
  /** The address holding the tokens (proxy / Safe / deposit wallet). */
  wallet: string;
  tokenId: string;
  conditionId: string;
  size: number;
  avgPrice: number;
  curPrice: number | null;
  currentValue: number | null;
  initialValue: number | null;
  cashPnl: number | null;
  redeemable: boolean;
  mergeable: boolean;
  negativeRisk: boolean;
  outcome: string | null;
  /** null when the venue does not know it (the snake shape sends 999). */
  outcomeIndex: number | null;
  title: string | null;
  slug: string | null;
  eventSlug: string | null;
}

const CamelPositionSchema = z
  .looseObject({
    proxyWallet: z.string(),
    asset: idString,
    conditionId: z.string(),
    size: numeric,
    avgPrice: numeric,
    curPrice: infoNumeric,
    currentValue: infoNumeric,
    initialValue: infoNumeric,
    cashPnl: infoNumeric,
    redeemable: z.boolean().nullish(),
    mergeable: z.boolean().nullish(),
    negativeRisk: z.boolean().nullish(),
    outcome: z.string().nullish(),
    outcomeIndex: z.number().int().nullish(),
    title: z.string().nullish(),
    slug: z.string().nullish(),
    eventSlug: z.string().nullish(),
  })
  .transform((p): PolymarketPosition => ({
    wallet: p.proxyWallet,
    tokenId: p.asset,
    conditionId: p.conditionId.toLowerCase(),
    size: p.size,
    avgPrice: p.avgPrice,
    curPrice: p.curPrice,
    currentValue: p.currentValue,
    initialValue: p.initialValue,
    cashPnl: p.cashPnl,
    redeemable: p.redeemable ?? false,
    mergeable: p.mergeable ?? false,
    negativeRisk: p.negativeRisk ?? false,
    outcome: p.outcome ?? null,
    outcomeIndex: knownIndex(p.outcomeIndex),
    title: p.title ?? null,
    slug: p.slug ?? null,
    eventSlug: p.eventSlug ?? null,
  }));

/** The snake_case names of the newer surface, and the camelCase field each one is. */
const SNAKE_TO_CAMEL: Record<string, string> = {
  proxy_wallet: 'proxyWallet',
  token_id: 'asset',
  condition_id: 'conditionId',
  current_size: 'size',
  avg_price: 'avgPrice',
  current_price: 'curPrice',
  current_value: 'currentValue',
  initial_value: 'initialValue',
  cash_pnl: 'cashPnl',
  negative_risk: 'negativeRisk',
  outcome_index: 'outcomeIndex',
  event_slug: 'eventSlug',
};

/** A snake_case row renamed to camelCase, then validated like any other row. */
const SnakePositionSchema = z
  .record(z.string(), z.unknown())
  .transform((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [SNAKE_TO_CAMEL[k] ?? k, v])))
  .pipe(CamelPositionSchema);

function knownIndex(i: number | null | undefined): number | null {
  return i === null || i === undefined || i === 999 ? null : i;
}

export const PositionsAnswerSchema = z.union([
  z.array(CamelPositionSchema),
  z.looseObject({ data: z.array(SnakePositionSchema) }).transform((e) => e.data),
]);

/**
 * One row of the Data API's public trades (`GET /trades`, reference §7): a fill seen from one
 * party's side (with `takerOnly=true`, the default, the taker's), camelCase with JSON numbers.
 * The profile fields (name, pseudonym, bio, profileImage…) are not read. `price` is the price of
 * the token traded (`asset`), not of YES.
 */
export const PublicTradeSchema = z
  .looseObject({
    proxyWallet: z.string(),
    side: z.enum(['BUY', 'SELL']),
    asset: idString,
    conditionId: z.string(),
    size: numeric,
    price: numeric,
    /** Unix seconds. */
    timestamp: z.number().int().nonnegative(),
    outcomeIndex: z.number().int().nullish(),
    transactionHash: z.string().nullish(),
  })
  .transform((t) => ({
    wallet: t.proxyWallet.toLowerCase(),
    side: t.side,
    tokenId: t.asset,
    conditionId: t.conditionId.toLowerCase(),
    size: t.size,
    price: t.price,
    timestamp: t.timestamp,
    outcomeIndex: knownIndex(t.outcomeIndex),
    transactionHash: t.transactionHash || null,
  }));
export type PolymarketPublicTrade = z.output<typeof PublicTradeSchema>;

/** `GET /trades` answers a bare array, newest first. */
export const PublicTradesAnswerSchema = z.array(PublicTradeSchema);
