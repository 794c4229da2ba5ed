import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { VenueRegistry } from '../venues/venue-registry.js';
import { externalVenueIds, type VenueId } from '../venues/venue-id.js';
import { walletOf } from './managed-wallet.js';
import { holderKey, holderOfTrade } from '../positions/holder.js';
import type { PositionRecord } from '../positions/position.model.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type BackfillHoldersDeps = Pick<InfraDeps, 'log'> & { models: Models; venues: VenueRegistry };

export type HolderDeps = Pick<BackfillHoldersDeps, 'models' | 'venues' | 'log'>;

/** Positions looked at per run of the backfill job. */
const BATCH = 200;

const distinct = (xs: (string | null | undefined)[]) => [...new Set(xs.filter((x): x is string => !!x))];

/**
 * The wallets an agent's fills on `venue` can have landed in: its own wallet, its human's (the
 * service's wallets are Polygon wallets, the chain of the one venue with public wallets).
 */
async function candidateWallets(deps: HolderDeps, venue: VenueId, agentId: string): Promise<string[]> {
  const [agent, own] = await Promise.all([
    deps.models.Agent.findById(agentId, { claimedBy: 1 }).lean(),
    deps.models.AgentWallet.findById(agentId, { address: 1 }).lean(),
  ]);
  const human = agent?.claimedBy ? await walletOf(deps, { kind: 'user', id: agent.claimedBy }) : null;
  return distinct([own?.address, human?.address, human?.maker].map((a) => a && holderKey(venue, a)));
}

/** Which of `wallets` hold tokens of the position's market, by the venue's Data API (`/positions?user=`). */
async function venueHolders(deps: HolderDeps, p: PositionRecord, wallets: string[]): Promise<string[]> {
  const market = await deps.models.Market.findById(p.marketId, { venueRef: 1 }).lean();
  const ref = market?.venueRef;
  const tokens = new Set([ref?.yesTokenId, ref?.noTokenId].filter(Boolean));
  if (tokens.size === 0) return [];
  const venue = deps.venues.get(p.venue);
  try {
    const holding = await Promise.all(
      wallets.map(async (w) =>
        (await venue.walletPositions(w)).some((row) => tokens.has(row.tokenId) && row.size > 0),
      ),
    );
    return wallets.filter((_, i) => holding[i]);
  } catch (err) {
    // The venue unreachable: the fills may still tell; if not, a later run asks again.
    deps.log.warn({ err, positionId: p._id }, 'venue positions unavailable for the holder backfill');
    return [];
  }
}

const hasPublicWallets = (deps: HolderDeps, venue: VenueId) =>
  deps.venues.has(venue) && deps.venues.get(venue).publicWallets === true;

/** The wallets the agent's orders in the market were filled into (our record of each signed order). */
async function filledInto(deps: HolderDeps, p: PositionRecord): Promise<string[]> {
  const trades = await deps.models.Trade.find(
    {
      agentId: p.agentId,
      marketId: p.marketId,
      venue: p.venue,
      'venueOrder.matchedSharesMicro': { $gt: 0 },
    },
    { venue: 1, venueOrder: 1 },
  ).lean();
  return distinct(trades.map(holderOfTrade));
}

/**
 * Where a position recorded before `holderAddress` existed holds its tokens. On a venue with public
 * wallets (Polymarket) the
 * venue decides first: of the agent's candidate wallets, the one whose Data API positions hold the
 * market's tokens. When that is not one wallet (the tokens are gone, or the human's wallet holds the
 * market for another agent as well), the makers of the agent's filled orders decide, when they name
 * one wallet. On Kalshi the wallet that signed the agent's filled orders. Null when neither tells.
 */
export async function findHolder(deps: HolderDeps, p: PositionRecord): Promise<string | null> {
  if (hasPublicWallets(deps, p.venue) && p.status !== 'settled') {
    const held = await venueHolders(deps, p, await candidateWallets(deps, p.venue, p.agentId));
    if (held.length === 1) return held[0]!;
  }
  const fills = await filledInto(deps, p);
  return fills.length === 1 ? fills[0]! : null;
}

/**
 * Finds and records the holder of a position whose holder is unknown; the recorded one when another
 * run (or a fill) set it first. Idempotent: the write is guarded on the holder still being unknown.
 */
export async function backfillHolder(deps: HolderDeps, p: PositionRecord): Promise<string | null> {
  if (p.holderAddress) return p.holderAddress;
  const holder = await findHolder(deps, p);
  if (!holder) return null;
  await deps.models.Position.updateOne(
    { _id: p._id, holderAddress: null },
    { $set: { holderAddress: holder } },
  );
  return (await deps.models.Position.findById(p._id, { holderAddress: 1 }).lean())?.holderAddress ?? null;
}

/**
 * Job `backfill-position-holders`: real-venue positions recorded before the holder was, given
 * theirs. Walks them in id order from `after`; a position nothing decides stays unknown (and is
 * logged): an agent with a wallet of its own does not redeem it from a guess (redeeming-wallet.ts,
 * auto-redeem.ts) until a later run finds its holder. Safe to run any number of times.
 */
export async function backfillHolders(deps: HolderDeps, after = '') {
  const counts = { examined: 0, backfilled: 0, unknown: 0 };
  for (let from = after; ;) {
    const batch = await deps.models.Position.find({
      venue: { $in: externalVenueIds() },
      holderAddress: null,
      _id: { $gt: from },
    })
      .sort({ _id: 1 })
      .limit(BATCH)
      .lean();
    for (const p of batch) {
      counts.examined++;
      if (await backfillHolder(deps, p)) counts.backfilled++;
      else {
        counts.unknown++;
        deps.log.warn(
          { positionId: p._id },
          'position holder not found: neither the venue nor our fills tell',
        );
      }
    }
    if (batch.length < BATCH) return counts;
    from = batch[batch.length - 1]!._id;
  }
}
