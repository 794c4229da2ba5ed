import type { ExternalVenueId } from './venue-id.js';

/**
 * One leg of one settlement on a venue that says who traded: a wallet's order filled, as the
 * venue's settlement layer published it (for a chain venue: one fill event of one transaction).
 * What the fill feed stores (`venue_fills`) and what Reactor matches against watchlists.
 */
export interface VenueFill {
  /**
   * `<txHash>:<logIndex>:<leg>`: stable across replays, restarts and catch-up (the store's unique
   * key), and the same after a reorg re-mines the transaction in another block.
   */
  _id: string;
  venue: ExternalVenueId;
  txHash: string;
  logIndex: number;
  blockNumber: number;
  blockHash: string;
  /** When the block holding it was produced. */
  at: Date;
  /** `taker`: the wallet's order took liquidity; `maker`: its resting order was filled. */
  leg: 'taker' | 'maker';
  /** The trading wallet, lower-cased. */
  wallet: string;
  action: 'buy' | 'sell';
  outcome: 'yes' | 'no';
  /** The venue's instrument of the outcome traded (Polymarket CLOB token id). */
  tokenId: string;
  /** Price of the outcome traded, in (0, 1). */
  price: number;
  /** Shares (outcome tokens) that changed hands on this leg. */
  shares: number;
  /** The venue market the instrument belongs to, when the venue knows it. */
  market: FillMarket | null;
  /** Set when a reorg replaced its block without it: it never settled. */
  withdrawnAt: Date | null;
}

/** The venue market of a fill, as the feed resolved its instrument (enough to import it). */
export interface FillMarket {
  /** The venue's market key (Polymarket condition id). */
  externalId: string;
  yesTokenId: string | null;
  noTokenId: string | null;
  title: string | null;
  slug: string | null;
  /** The outcome's label on the venue ("Yes", "Up", a candidate's name). */
  outcomeLabel: string | null;
}
