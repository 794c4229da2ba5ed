import type { WalletPosition } from '../venues/venue-adapter.js';

/**
 * What a group of wallets agrees on, from their public positions: per market, the outcome they hold
 * and how much, markets where they hold opposite outcomes left out. Pure: no I/O.
 */

/** A holding worth less than this (USD) is dust: neither copied nor a sign the wallet still holds. */
export const MIN_POSITION_USD = 1;
/** An outcome priced outside this band is all but decided: too late to copy (little left to win). */
export const STALE_BELOW = 0.1;
export const STALE_ABOVE = 0.9;
/** Conviction of a market one wallet holds, against one that two or more agree on. */
export const SINGLE_WALLET_TIER = 0.5;

export interface ConsensusMarket {
  /** The venue's market id (a position's `conditionId`). */
  externalId: string;
  /** The outcome token the wallets hold. */
  tokenId: string;
  title: string | null;
  /** The wallets holding it, largest holding first. */
  holders: string[];
  /** What the holders hold of it, USD at the current price. */
  whaleUsd: number;
  /** The outcome's current price, weighted by the holders' values. */
  price: number;
  /** 1 when two or more wallets hold it, SINGLE_WALLET_TIER for one. */
  tier: number;
  /** whaleUsd × tier: the order in which markets are copied. */
  conviction: number;
}

export interface Consensus {
  /** Positions the wallets hold (redeemable and dust left out). */
  positionsFound: number;
  /** Markets left out because the wallets hold opposite outcomes. */
  conflicts: number;
  /** Markets left out because their outcome is priced outside [STALE_BELOW, STALE_ABOVE]. */
  stale: number;
  /** Markets to copy, by conviction (highest first). */
  markets: ConsensusMarket[];
  /** Every market some wallet still holds, copied or not: a copy of any other is a whale exit. */
  held: Set<string>;
}

const usdOf = (p: WalletPosition) => p.currentValue ?? p.size * (p.curPrice ?? 0);

interface NetHolding {
  wallet: string;
  tokenId: string;
  usd: number;
  price: number;
  title: string | null;
}

/**
 * One wallet's holding of one market: the outcome it holds more of, by the value it holds beyond
 * the other outcome (a wallet holding both sides equally holds nothing of the market's direction).
 */
function netHolding(wallet: string, rows: WalletPosition[]): NetHolding | null {
  const [top, next] = [...rows].sort((a, b) => usdOf(b) - usdOf(a));
  const usd = usdOf(top!) - (next ? usdOf(next) : 0);
  if (usd < MIN_POSITION_USD) return null;
  const price = top!.curPrice ?? (top!.size > 0 ? usdOf(top!) / top!.size : 0);
  return { wallet, tokenId: top!.tokenId, usd, price, title: top!.title };
}

export function whaleConsensus(read: Map<string, WalletPosition[]>): Consensus {
  const byMarket = new Map<string, NetHolding[]>();
  const held = new Set<string>();
  let positionsFound = 0;
  for (const [wallet, rows] of read) {
    const kept = rows.filter((p) => !p.redeemable && p.size > 0 && usdOf(p) >= MIN_POSITION_USD);
    positionsFound += kept.length;
    const mine = new Map<string, WalletPosition[]>();
    for (const p of kept) {
      held.add(p.conditionId);
      mine.set(p.conditionId, [...(mine.get(p.conditionId) ?? []), p]);
    }
    for (const [externalId, positions] of mine) {
      const net = netHolding(wallet, positions);
      if (net) byMarket.set(externalId, [...(byMarket.get(externalId) ?? []), net]);
    }
  }
  let conflicts = 0;
  let stale = 0;
  const markets: ConsensusMarket[] = [];
  for (const [externalId, holdings] of byMarket) {
    if (new Set(holdings.map((h) => h.tokenId)).size > 1) {
      conflicts++;
      continue;
    }
    const whaleUsd = holdings.reduce((s, h) => s + h.usd, 0);
    const price = holdings.reduce((s, h) => s + h.price * h.usd, 0) / whaleUsd;
    if (price < STALE_BELOW || price > STALE_ABOVE) {
      stale++;
      continue;
    }
    const sorted = [...holdings].sort((a, b) => b.usd - a.usd);
    const tier = holdings.length >= 2 ? 1 : SINGLE_WALLET_TIER;
    markets.push({
      externalId,
      tokenId: sorted[0]!.tokenId,
      title: sorted.find((h) => h.title)?.title ?? null,
      holders: sorted.map((h) => h.wallet),
      whaleUsd,
      price,
      tier,
      conviction: whaleUsd * tier,
    });
  }
  markets.sort((a, b) => b.conviction - a.conviction || a.externalId.localeCompare(b.externalId));
  return { positionsFound, conflicts, stale, markets, held };
}

/**
 * How many markets to copy when the agent names no number: fewer, larger positions for a small
 * balance (the skill's published tiers).
 */
export function autoTopN(balance: number): number {
  if (balance < 50) return 5;
  if (balance < 200) return 10;
  if (balance < 500) return 25;
  return 50;
}
