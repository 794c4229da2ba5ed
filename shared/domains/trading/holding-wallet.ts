import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { VenueRegistry } from '../venues/venue-registry.js';
import { backfillHolder } from '../wallets/backfill-holders.js';
import { heldElsewhere } from '../positions/holder.js';
import type { PositionRecord } from '../positions/position.model.js';
import { refusalOf, type Refusal } from '../refusal.js';
import type { TradeRequest } from './trade.schemas.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type HoldingWalletDeps = Pick<InfraDeps, 'log'> & { models: Models; venues: VenueRegistry };

/**
 * The wallet a Polymarket trade names, or would if it named one: `wallet_address` as sent, and for
 * a sale without it the wallet holding the position. An agent that bought through its human's
 * wallet and registered its own later sells from the human's wallet (where the shares are), and a
 * position bought with the agent's wallet is sold from it, whoever asks (the agent, or its
 * stop-loss monitor).
 */
export const walletNamed = (
  req: Pick<TradeRequest, 'wallet_address' | 'action'>,
  position: PositionRecord | null,
): string | null =>
  req.wallet_address ??
  (req.action === 'sell' && position?.status === 'open' ? position.holderAddress : null) ??
  null;

/**
 * An open position is held in one wallet, and is traded there: a sale from another wallet would sell
 * shares it does not have, a buy would split the position across two wallets (and its redemption
 * with it). `maker` is the address the order would carry. Null when the trade may go ahead.
 */
export function otherWalletRefusal(position: PositionRecord | null, maker: string): Refusal | null {
  const holder = heldElsewhere(position, maker);
  if (!holder) return null;
  return refusalOf(
    'position_in_other_wallet',
    `This position is held in wallet ${holder}, not in ${maker}: it is traded from the wallet that holds it.`,
    `Send wallet_address ${holder} if it is this agent's own wallet, or omit wallet_address if it is your human's; sell the position there before trading this market from another wallet.`,
  );
}

/**
 * The position with its holder known, when it holds shares: one recorded before holders were is
 * given its holder first (the backfill: the venue, then the fills), since a trade from whichever
 * wallet asks would otherwise pass and the fill would move the whole position there. A refusal
 * (retryable: the backfill job asks again) when neither tells.
 */
export async function withKnownHolder(
  deps: Pick<HoldingWalletDeps, 'models' | 'venues' | 'log'>,
  position: PositionRecord | null,
): Promise<PositionRecord | null | Refusal> {
  if (!position || position.status !== 'open' || position.holderAddress) return position;
  const held =
    position.sharesYesMicro + position.sharesNoMicro + position.reservedYesMicro + position.reservedNoMicro;
  if (held === 0) return position;
  const holderAddress = await backfillHolder(deps, position);
  if (holderAddress) return { ...position, holderAddress };
  return {
    ...refusalOf(
      'holder_unknown',
      'Which wallet holds this position is not known yet: the venue and the recorded fills do not tell, so it is not traded from a guess.',
      'Retry later: the service looks for the holding wallet again every 10 minutes.',
    ),
    retryable: true,
  };
}
