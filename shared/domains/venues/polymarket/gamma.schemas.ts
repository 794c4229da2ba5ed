import { z } from 'zod';
import { TOKEN_ID } from '../external-ids.js';
import { idString, infoNumeric, jsonArray, looseDate, numeric } from './wire-primitives.js';

/**
 * Gamma API wire shapes (reference §2.2, §2.3): only the fields the adapter reads. Objects are
 * loose, so fields Polymarket adds never break us; the fields we rely on are typed strictly, so a
 * changed shape fails the call (VenueHttpError kind `schema`) rather than producing a wrong price.
 * Fields Gamma leaves out on young or odd markets are nullish; the mapper decides what that means.
 */

/** A CLOB token id: the decimal string of a uint256. Never a JSON number (it exceeds 2^53). */
const tokenId = z.string().regex(TOKEN_ID, 'a decimal token id');

export const GammaTagSchema = z.looseObject({
  id: idString.nullish(),
  label: z.string().nullish(),
  slug: z.string().nullish(),
});
export type GammaTag = z.output<typeof GammaTagSchema>;

/** The parent-event summary embedded in a market (`events: [{id, slug, title, …}]`). */
export const GammaEventRefSchema = z.looseObject({
  id: idString,
  slug: z.string().nullish(),
  title: z.string().nullish(),
  negRisk: z.boolean().nullish(),
  tags: z.array(GammaTagSchema).nullish(),
});
export type GammaEventRef = z.output<typeof GammaEventRefSchema>;

export const GammaMarketSchema = z.looseObject({
  id: idString,
  question: z.string(),
  /** `""` (or missing) on markets not deployed on the CLOB yet. */
  conditionId: z.string().nullish(),
  slug: z.string(),
  description: z.string().nullish(),
  outcomes: jsonArray(z.string()),
  /** Decimal strings inside a JSON string; index 0 is the YES (first) outcome. */
  outcomePrices: jsonArray(numeric).nullish(),
  /** Same order as `outcomes`; absent on Protocol-V2 markets (they use `positionIds`). */
  clobTokenIds: jsonArray(tokenId).nullish(),
  /** `"v1"` (CTF, CLOB tokens) or `"v2"` (Protocol V2); absent on older payloads, meaning v1. */
  version: z.string().nullish(),
  active: z.boolean().nullish(),
  closed: z.boolean(),
  acceptingOrders: z.boolean().nullish(),
  negRisk: z.boolean().nullish(),
  orderPriceMinTickSize: numeric.nullish(),
  orderMinSize: numeric.nullish(),
  /** Legacy V1 taker fee in bps. */
  takerBaseFee: infoNumeric,
  volume24hr: infoNumeric,
  volumeNum: infoNumeric,
  volume: infoNumeric,
  liquidityNum: infoNumeric,
  liquidity: infoNumeric,
  bestBid: infoNumeric,
  bestAsk: infoNumeric,
  endDate: looseDate,
  closedTime: looseDate,
  umaEndDate: looseDate,
  umaResolutionStatus: z.string().nullish(),
  groupItemTitle: z.string().nullish(),
  category: z.string().nullish(),
  tags: z.array(GammaTagSchema).nullish(),
  events: z.array(GammaEventRefSchema).nullish(),
});
export type GammaMarket = z.output<typeof GammaMarketSchema>;

export const GammaMarketListSchema = z.array(GammaMarketSchema);

export const GammaEventSchema = z.looseObject({
  id: idString,
  slug: z.string(),
  title: z.string(),
  description: z.string().nullish(),
  negRisk: z.boolean().nullish(),
  closed: z.boolean().nullish(),
  /** Sum of its markets' 24-hour volumes (a plain number here, unlike markets' string `volume`). */
  volume24hr: infoNumeric,
  tags: z.array(GammaTagSchema).nullish(),
  /** Full market objects (without their own `events` back-reference). */
  markets: z.array(GammaMarketSchema).nullish(),
});
export type GammaEvent = z.output<typeof GammaEventSchema>;

export const GammaEventListSchema = z.array(GammaEventSchema);
