import { holderKey } from '../positions/holder.js';
import type { TradeRecord } from './trade.model.js';

/**
 * The wallet a real-venue trade's fills land in, from the order as it was signed: its `maker` on
 * Polymarket (the service's managed or agent wallet, or the client's own), the signing wallet of the
 * Solana transaction on Kalshi. Null before the order is signed, and on sim.
 */
export function holderOfTrade(t: Pick<TradeRecord, 'venue' | 'venueOrder'>): string | null {
  const signed = t.venueOrder?.signed as { maker?: unknown; wallet?: unknown } | null | undefined;
  const address = t.venue === 'kalshi' ? signed?.wallet : t.venue === 'polymarket' ? signed?.maker : null;
  return typeof address === 'string' && address ? holderKey(t.venue, address) : null;
}
