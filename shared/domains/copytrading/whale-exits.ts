import { chunks } from '../../util/chunks.js';
import type { MarketRecord } from '../markets/market.model.js';
import type { Models } from '../models.js';
import type { VenueId } from '../venues/venue-id.js';
import type { AgentHolding, ExitCandidate } from './copy-plan.js';

/**
 * The `source` of copytrading trades: the published skill's (`sdk:copytrading`, and
 * `sdk:copytrading:reactor` for its Reactor mode) and this service's own executions of a plan.
 */
export const COPYTRADING_SOURCE = 'sdk:copytrading';
/**
 * The skill records the copied wallet as `signal_data.whale_wallet`, cut to its first 10 characters
 * (0x and 8 hex digits); a shorter value names no wallet.
 */
const MIN_WALLET_PREFIX = 10;

type Market = Pick<MarketRecord, '_id' | 'question' | 'status' | 'venueRef'>;

/**
 * The agent's copies the wallets have left: open holdings in markets of the wallets' venue that
 * none of the wallets holds any more (`held`), bought by a copytrading trade that named one of
 * these wallets. A position bought some other way (another skill, by hand), or copied from a wallet
 * not in this request, is never sold here.
 */
export async function whaleExits(
  models: Pick<Models, 'Trade'>,
  agentId: string,
  venue: VenueId,
  wallets: string[],
  copiedVenue: VenueId,
  held: Set<string>,
  holdings: { holding: AgentHolding; market: Market }[],
): Promise<ExitCandidate[]> {
  const left = holdings.filter(
    ({ holding: h, market: m }) =>
      (h.yesMicro > 0 || h.noMicro > 0) &&
      m.status === 'active' &&
      m.venueRef?.venue === copiedVenue &&
      !held.has(m.venueRef.externalId),
  );
  const copiedFrom = new Map<string, string>();
  for (const batch of chunks(left, 200)) {
    const trades = await models.Trade.find(
      {
        agentId,
        venue,
        action: 'buy',
        marketId: { $in: batch.map((x) => x.market._id) },
        source: { $regex: `^${COPYTRADING_SOURCE}` },
      },
      { marketId: 1, signalData: 1 },
    ).lean();
    for (const t of trades) {
      const named = String((t.signalData as { whale_wallet?: unknown } | null)?.whale_wallet ?? '');
      if (named.length < MIN_WALLET_PREFIX || copiedFrom.has(t.marketId)) continue;
      const wallet = wallets.find((w) => w.startsWith(named.toLowerCase()));
      if (wallet) copiedFrom.set(t.marketId, wallet);
    }
  }
  return left
    .filter((x) => copiedFrom.has(x.market._id))
    .map((x) => ({
      marketId: x.market._id,
      title: x.market.question,
      wallet: copiedFrom.get(x.market._id)!,
      holding: x.holding,
    }));
}
