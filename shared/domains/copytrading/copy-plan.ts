import { fromMicro, MICRO } from '../money.js';
import type { ConsensusMarket } from './whale-consensus.js';

/**
 * The trades that bring an agent's holdings in line with what the copied wallets hold: each copied
 * market's target (scaled to the agent's `max_usd_per_position`) against what the agent holds there,
 * and the copies of markets the wallets have left. Pure: no I/O, no prices beyond the wallets'.
 */

/** A gap smaller than this (USD) is left alone: not worth a trade, nor its fees. */
export const MIN_TRADE_USD = 1;

export type Side = 'yes' | 'no';
export type TradeReason = 'copy' | 'rebalance' | 'opposite_side' | 'whale_exit';

/** A market to copy, resolved to ours: the outcome the wallets hold as our side. */
export interface CopyTarget {
  marketId: string;
  title: string;
  side: Side;
  consensus: ConsensusMarket;
}

/** What the agent holds of a market on the venue it copies to (shares free to sell, micro-units). */
export interface AgentHolding {
  marketId: string;
  yesMicro: number;
  noMicro: number;
  /** The position's ledger version (appliedSeq): a plan made from another state is another plan. */
  version: number;
}

/** A position the agent copied from a wallet that holds the market no longer. */
export interface ExitCandidate {
  marketId: string;
  title: string;
  /** The wallet it was copied from. */
  wallet: string;
  holding: AgentHolding;
}

export interface PlannedTrade {
  marketId: string;
  title: string;
  action: 'buy' | 'sell';
  side: Side;
  /** A buy's spend (2 decimals); 0 on sells. */
  amountMicro: number;
  /** A sale's shares (5 decimals); 0 on buys. */
  sharesMicro: number;
  reason: TradeReason;
  whaleWallet: string;
  whaleUsd: number;
  /** The market's share of everything the wallets agree on (size-weighted), 0 for an exit. */
  edge: number;
  /** Conviction relative to the plan's strongest market: tier × size share, in (0, 1]. */
  confidence: number;
  /** The holding the trade was planned from: part of its idempotency key. */
  holdingVersion: number;
}

export interface PlanOptions {
  maxUsdPerPosition: number;
  buyOnly: boolean;
  /** The venue's largest buy, or null when it has none. */
  maxBuyMicro: number | null;
}

const round4 = (n: number) => Math.round(n * 1e4) / 1e4;
/** Quantized down as the trade endpoint reads them: spend to the cent, shares to 5 decimals. */
const centsMicro = (usd: number) => Math.floor(usd * 100) * 10_000;
const sharesMicroDown = (micro: number) => Math.floor(micro / 10) * 10;
const EMPTY = (marketId: string): AgentHolding => ({ marketId, yesMicro: 0, noMicro: 0, version: 0 });

/**
 * Each target's size: `max_usd_per_position` × tier × (its holders' value / the largest among the
 * targets), so the wallets' largest agreed position gets the full amount, one only one wallet holds
 * half of it, and smaller positions proportionally less. `totalUsd` is what the wallets hold across
 * every market they agree on (for `edge`).
 */
export function planCopyTrades(
  targets: CopyTarget[],
  holdings: Map<string, AgentHolding>,
  exits: ExitCandidate[],
  totalUsd: number,
  opts: PlanOptions,
): PlannedTrade[] {
  const largest = Math.max(0, ...targets.map((t) => t.consensus.whaleUsd));
  const sells: PlannedTrade[] = [];
  const buys: PlannedTrade[] = [];

  for (const e of exits) {
    for (const side of ['yes', 'no'] as const) {
      const sharesMicro = sharesMicroDown(side === 'yes' ? e.holding.yesMicro : e.holding.noMicro);
      if (sharesMicro <= 0) continue;
      sells.push({
        marketId: e.marketId,
        title: e.title,
        action: 'sell',
        side,
        amountMicro: 0,
        sharesMicro,
        reason: 'whale_exit',
        whaleWallet: e.wallet,
        whaleUsd: 0,
        edge: 0,
        confidence: 1,
        holdingVersion: e.holding.version,
      });
    }
  }

  for (const t of targets) {
    const c = t.consensus;
    const share = largest > 0 ? c.whaleUsd / largest : 0;
    const targetUsd = opts.maxUsdPerPosition * c.tier * share;
    const h = holdings.get(t.marketId) ?? EMPTY(t.marketId);
    const base = {
      marketId: t.marketId,
      title: t.title,
      whaleWallet: c.holders[0]!,
      whaleUsd: round4(c.whaleUsd),
      edge: totalUsd > 0 ? round4(c.whaleUsd / totalUsd) : 0,
      confidence: round4(c.tier * share),
      holdingVersion: h.version,
    };
    const otherMicro = sharesMicroDown(t.side === 'yes' ? h.noMicro : h.yesMicro);
    if (!opts.buyOnly && otherMicro > 0)
      sells.push({
        ...base,
        action: 'sell',
        side: t.side === 'yes' ? 'no' : 'yes',
        amountMicro: 0,
        sharesMicro: otherMicro,
        reason: 'opposite_side',
      });
    const sideMicro = t.side === 'yes' ? h.yesMicro : h.noMicro;
    const gapUsd = targetUsd - fromMicro(sideMicro) * c.price;
    if (gapUsd >= MIN_TRADE_USD) {
      const want = centsMicro(gapUsd);
      const amountMicro = opts.maxBuyMicro === null ? want : Math.min(want, opts.maxBuyMicro);
      buys.push({ ...base, action: 'buy', side: t.side, amountMicro, sharesMicro: 0, reason: 'copy' });
    } else if (!opts.buyOnly && -gapUsd >= MIN_TRADE_USD && c.price > 0) {
      const sharesMicro = sharesMicroDown(Math.min(sideMicro, Math.round((-gapUsd / c.price) * MICRO)));
      if (sharesMicro > 0)
        sells.push({
          ...base,
          action: 'sell',
          side: t.side,
          amountMicro: 0,
          sharesMicro,
          reason: 'rebalance',
        });
    }
  }
  // Sales first: they free the cash the buys spend.
  return [...sells, ...buys];
}
