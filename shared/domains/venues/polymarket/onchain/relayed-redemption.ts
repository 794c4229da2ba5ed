import type { InfraDeps } from '../../../../infra/infra-deps.js';
import type { Models } from '../../../models.js';
import type { PolygonRpc } from './polygon-rpc.js';
import { byExternalIds } from '../../../markets/venue-ref.js';
import { isDuplicateKey } from '../../../refusal.js';
import { redemptionId } from '../../../wallets/redemption.model.js';
import { finishRedemption } from './settle-redemption.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type RelayedRedemptionDeps = Pick<InfraDeps, 'clock'> & { models: Models; polygon: PolygonRpc };

/** A redemption the relay accepted: who sent it, its hash, and the condition its calldata names. */
export interface RelayedRedemption {
  hash: string;
  userId: string;
  /** The linked external wallet that signed it (the relay checked the signature). */
  sender: string;
  conditionId: string;
}

/**
 * Links a client-signed redemption to its market at relay time (`POST /api/sdk/wallet/broadcast-tx`),
 * by the condition id in its calldata, so that the receipt follower settles it when it is mined
 * (broadcast-worker.ts → finishRedemption) even if the client never calls
 * `POST /api/sdk/redeem/report`. It is recorded as the wallet's redemption of that market (the one
 * record a wallet has per market: the adapters redeem the whole balance), `sent` under this hash.
 * A redemption already booked is left alone, so a second transaction for a redeemed market pays
 * nothing twice; a condition no imported market has is not ours to settle and links nothing.
 * Called before the transaction is sent, so the receipt cannot arrive first.
 */
export async function linkRelayedRedemption(
  deps: Pick<RelayedRedemptionDeps, 'models'>,
  relay: RelayedRedemption,
): Promise<void> {
  const market = await deps.models.Market.findOne(byExternalIds('polymarket', [relay.conditionId]), {
    _id: 1,
  }).lean();
  if (!market) return;
  const id = redemptionId(relay.sender, market._id);
  const link = () =>
    deps.models.Redemption.updateOne(
      { _id: id, status: { $ne: 'redeemed' } },
      {
        $set: { txHash: relay.hash, status: 'sent', path: 'external', error: null },
        $setOnInsert: {
          userId: relay.userId,
          // An external wallet is the human's: agents' own wallets are keys the service holds.
          agentId: null,
          marketId: market._id,
          conditionId: relay.conditionId.toLowerCase(),
          wallet: relay.sender,
          requests: 0,
        },
      },
      { upsert: true },
    );
  await link().catch(async (err: unknown) => {
    // The record exists and is `redeemed` (the filter missed it, the upsert hit its _id), or a
    // concurrent first link inserted it: once more, which updates or finds it redeemed.
    if (!isDuplicateKey(err)) throw err;
    await link().catch((again: unknown) => {
      if (!isDuplicateKey(again)) throw again;
    });
  });
}

/** How many relayed redemptions one sweep looks at (the rest wait for the next minute). */
const SWEEP_LIMIT = 200;

/**
 * Finishes relayed redemptions whose transaction was mined while the service did not yet know the
 * market resolved (the chain can resolve a condition before the resolution job sees it): the
 * receipt follower left them `sent`, and they are settled once the market is resolved here. Run
 * by the `auto-redeem` job every minute; settling is exactly once however often it runs.
 */
export async function finishRelayedRedemptions(
  deps: Pick<RelayedRedemptionDeps, 'models' | 'clock' | 'polygon'>,
): Promise<{ finished: number }> {
  const waiting = await deps.models.Redemption.find(
    { status: 'sent', path: 'external', txHash: { $ne: null } },
    { txHash: 1, marketId: 1 },
  )
    .limit(SWEEP_LIMIT)
    .lean();
  let finished = 0;
  for (const r of waiting) {
    const tx = await deps.models.TxBroadcast.findById(r.txHash, { receiptStatus: 1 }).lean();
    if (tx?.receiptStatus !== 1) continue;
    const done = await finishRedemption(deps, r.txHash!, true);
    if (done?.status === 'redeemed') finished++;
  }
  return { finished };
}
