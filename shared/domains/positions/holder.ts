import type { PositionRecord } from './position.model.js';
import { signedOrderWalletField, walletDisplay, walletKey } from '../venues/venue-conventions.js';
import type { VenueId } from '../venues/venue-id.js';

/**
 * The form a holder address is stored and compared in: Polygon addresses in lower case (the venue's
 * Data API and our checksummed wallets spell one address two ways), Solana addresses as they are
 * (base58 is case-sensitive).
 */
export const holderKey = walletKey;

/**
 * The wallet a real-venue trade's fills land in, from the order as it was signed: its `maker` on
 * Polymarket (the service's managed or agent wallet, or the client's own), the signing wallet of the
 * Solana transaction on Kalshi. Null before the order is signed, and on sim. Typed by the shape it
 * reads, so that positions need not know the trade record.
 */
export function holderOfTrade(t: {
  venue: VenueId;
  venueOrder?: { signed?: unknown } | null;
}): string | null {
  const field = signedOrderWalletField(t.venue);
  const signed = t.venueOrder?.signed as Record<string, unknown> | null | undefined;
  const address = field && signed?.[field];
  return typeof address === 'string' && address ? holderKey(t.venue, address) : null;
}

/** Whether `address` is the wallet holding a position (compared in holder form). */
export const isHolder = (p: Pick<PositionRecord, 'venue' | 'holderAddress'>, address: string) =>
  !!p.holderAddress && p.holderAddress === holderKey(p.venue, address);

/**
 * The wallet holding an open position's tokens when it is not `address`: the agent's trades on the
 * position must go through the holder, or a sale would sell what the wallet does not have and a
 * buy would split one position across two wallets. Null when `address` may trade it (the same
 * wallet, nothing held, or a holder not known yet).
 */
export function heldElsewhere(
  p: Pick<
    PositionRecord,
    | 'venue'
    | 'status'
    | 'holderAddress'
    | 'sharesYesMicro'
    | 'sharesNoMicro'
    | 'reservedYesMicro'
    | 'reservedNoMicro'
  > | null,
  address: string,
): string | null {
  if (!p || p.status !== 'open' || !p.holderAddress || isHolder(p, address)) return null;
  const held = p.sharesYesMicro + p.sharesNoMicro + p.reservedYesMicro + p.reservedNoMicro;
  return held > 0 ? p.holderAddress : null;
}

/**
 * A position's `holder_address` (client-contract §6.1: the official client routes a sale's
 * signature by it): the holder in its usual spelling (a checksummed Polygon address), null on sim
 * and while unknown.
 */
export const holderView = (p: Pick<PositionRecord, 'venue' | 'holderAddress'>): string | null =>
  p.holderAddress ? walletDisplay(p.venue, p.holderAddress) : null;
