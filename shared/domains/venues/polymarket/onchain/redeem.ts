import type { InfraDeps } from '../../../../infra/infra-deps.js';
import type { Models } from '../../../models.js';
import type { VenueRegistry } from '../../venue-registry.js';
import type { PolygonRpc } from './polygon-rpc.js';
import type { z } from 'zod';
import { getAddress } from 'ethers';
import { AppError } from '../../../../infra/errors.js';
import { isDuplicateKey } from '../../../refusal.js';
import type { MarketRecord } from '../../../markets/market.model.js';
import { venueRefOn, type VenueRefOn } from '../../../markets/venue-ref.js';
import { fromMicro } from '../../../money.js';
import type { WalletAccount } from '../../../wallets/wallet-account.js';
import { redemptionTransaction } from './approval-transactions.js';
import { outcomeOf, type RedeemOutcome } from './redeem-position.js';
import type {
  RedeemReportResponseSchema,
  RedeemReportSchema,
  RedeemRequestSchema,
  RedeemResponseSchema,
} from '../../../wallets/redeem.schemas.js';
import { redemptionId, type RedemptionRecord } from '../../../wallets/redemption.model.js';
import {
  redeemingWallet,
  scopeHolders,
  scopeOfAgent,
  scopePositions,
  type RedeemingWallet,
  type RedemptionScope,
} from './redeeming-wallet.js';
import { isRedeemable, redemptionPayoutMicro } from '../../../positions/redeemable.js';
import { resolutionLabel, yesPayoutMicro } from '../../../markets/resolution.js';
import {
  coveredBy,
  owedToHolders,
  settleRedeemedPositions,
  unsettledPositions,
} from './settle-redemption.js';
import { verifyRedemptionReceipt, type RedemptionVerdict } from './redemption-receipt.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type RedeemDeps = Pick<InfraDeps, 'env' | 'log' | 'queues' | 'clock'> & {
  models: Models;
  venues: VenueRegistry;
  polygon: PolygonRpc;
};

type RedeemAnswer = z.input<typeof RedeemResponseSchema>;

/** How long `POST /api/sdk/redeem` waits for a managed redemption to be signed, sent and mined. */
export const REDEEM_WAIT_MS = 15_000;

/**
 * Whose wallet the calling agent redeems `marketId` from: the one holding its position there (its
 * own agent wallet, or its human's). Real positions belong to claimed agents only.
 */
export async function scopeOf(
  deps: Pick<RedeemDeps, 'models' | 'venues' | 'log'>,
  account: WalletAccount,
  agentId: string,
  marketId: string,
): Promise<RedemptionScope> {
  if (account.owner.kind !== 'user')
    throw new AppError(
      403,
      'agent_not_claimed',
      'Agent must be claimed before it can redeem',
      'Ask your human to claim this agent at claim_url; real positions and their wallet belong to their account.',
      { body: { claim_url: account.claimUrl } },
    );
  return scopeOfAgent(deps, account.owner.id, agentId, marketId);
}

type PolymarketMarket = MarketRecord & { venueRef: VenueRefOn<'polymarket'> };

export async function resolvedMarket(deps: Pick<RedeemDeps, 'models'>, marketId: string) {
  const market = await deps.models.Market.findById(marketId).lean();
  if (!market)
    throw new AppError(
      404,
      'market_not_found',
      `Market ${marketId} not found`,
      'Use the market_id of GET /api/sdk/positions?venue=polymarket.',
    );
  const ref = venueRefOn(market, 'polymarket');
  if (!ref)
    throw new AppError(
      400,
      'not_a_polymarket_market',
      `Market ${marketId} is not a Polymarket market`,
      'Only Polymarket positions are redeemed on-chain; sim positions are paid out automatically at resolution.',
    );
  return { ...market, venueRef: ref };
}

export const notResolved = (m: MarketRecord) =>
  new AppError(
    409,
    'market_not_resolved',
    `Market ${m._id} is not resolved yet (status ${m.status}): nothing can be redeemed before resolution`,
    'Wait for the market to resolve (GET /api/sdk/markets/{market_id} shows status "resolved"), then redeem.',
    { body: { not_redeemable: true, reason: 'market_not_settled' } },
  );

async function walletFor(
  deps: Pick<RedeemDeps, 'models' | 'env'>,
  scope: RedemptionScope,
): Promise<RedeemingWallet> {
  const wallet = await redeemingWallet(deps, scope);
  if (!wallet)
    throw new AppError(
      409,
      'no_wallet',
      'No Polymarket wallet is linked to this account',
      'Link your wallet (POST /api/sdk/wallet/link) or create a managed one (POST /api/sdk/wallet/managed).',
    );
  return wallet;
}

/**
 * `POST /api/sdk/redeem` (client-contract §8.4). Managed wallet: the `redeem-position` job signs,
 * sends and follows the redemption, and the answer waits for it (or says `submitted`). External
 * wallet: the answer carries `unsigned_tx`, the adapter redemption that the client's whitelist and
 * our relay both accept; the client signs it, relays it and reports it.
 */
export async function redeem(
  deps: RedeemDeps,
  account: WalletAccount,
  agentId: string,
  body: z.output<typeof RedeemRequestSchema>,
): Promise<RedeemAnswer> {
  const scope = await scopeOf(deps, account, agentId, body.market_id);
  const market = await resolvedMarket(deps, body.market_id);
  if (yesPayoutMicro(market) === null) throw notResolved(market);
  const wallet = await walletFor(deps, scope);
  const id = redemptionId(wallet.address, market._id);
  const base = {
    market_id: market._id,
    side: body.side ?? null,
    condition_id: market.venueRef.externalId,
  };
  const existing = await deps.models.Redemption.findById(id).lean();
  if (existing?.status === 'redeemed') return redeemedAnswer(base, existing);

  const positions = (await unsettledPositions(deps, scope, market._id)).filter((p) =>
    isRedeemable(p, market),
  );
  if (positions.length === 0)
    throw new AppError(
      409,
      'nothing_to_redeem',
      `No winning Polymarket shares to redeem in market ${market._id} (resolved ${resolutionLabel(market)})`,
      'Losing shares redeem for 0; GET /api/sdk/positions?status=resolved lists the positions with redeemable: true.',
      { body: { not_redeemable: true, reason: 'no_winning_shares' } },
    );
  const expected = fromMicro(positions.reduce((s, p) => s + redemptionPayoutMicro(p, market), 0));

  if (wallet.ownership === 'external') return externalRedemption(deps, base, wallet, market, expected, scope);

  const rec = await deps.models.Redemption.findOneAndUpdate(
    { _id: id },
    {
      $setOnInsert: {
        ...scope,
        marketId: market._id,
        conditionId: market.venueRef.externalId,
        wallet: wallet.address,
        path: 'managed',
        status: 'prepared',
      },
      $inc: { requests: 1 },
    },
    { upsert: true, returnDocument: 'after' },
  ).lean();
  const outcome = await deps.queues.enqueueAndWait<RedeemOutcome>(
    'redeem-position',
    { ...scope, marketId: market._id, attempt: `r${rec!.requests}` },
    REDEEM_WAIT_MS,
  );
  const now =
    outcome.state === 'completed'
      ? outcome.result
      : outcomeOf((await deps.models.Redemption.findById(id).lean())!);
  const inFlight = outcome.state === 'pending' && now.status !== 'redeemed' && now.status !== 'failed';
  return {
    ...base,
    success: now.status !== 'failed',
    status: inFlight ? 'submitted' : now.status,
    tx_hash: now.tx_hash,
    payout: now.status === 'redeemed' ? now.payout : expected,
    already_redeemed: false,
    error: outcome.state === 'failed' ? outcome.reason : now.error,
    message:
      now.status === 'redeemed'
        ? `Redeemed ${now.payout} pUSD into ${wallet.address}.`
        : now.status === 'failed'
          ? 'The redemption failed; ask again to sign a new one.'
          : 'The redemption is on its way; GET /api/sdk/positions shows the position settled once it is mined.',
  };
}

const redeemedAnswer = (
  base: { market_id: string; side: 'yes' | 'no' | null; condition_id: string },
  rec: RedemptionRecord,
): RedeemAnswer => ({
  ...base,
  success: true,
  status: 'redeemed',
  tx_hash: rec.txHash,
  payout: fromMicro(rec.payoutMicro),
  already_redeemed: true,
  error: null,
  message: 'Already redeemed: nothing more to pay.',
});

async function externalRedemption(
  deps: RedeemDeps,
  base: { market_id: string; side: 'yes' | 'no' | null; condition_id: string },
  wallet: RedeemingWallet,
  market: PolymarketMarket,
  expected: number,
  scope: RedemptionScope,
): Promise<RedeemAnswer> {
  const tx = redemptionTransaction(wallet.address, {
    conditionId: market.venueRef.externalId,
    negRisk: market.venueRef.negRisk === true,
  });
  // The node's estimate, when it can make one (it reverts until the adapter is approved as operator).
  const gas = await deps.polygon
    .request('eth_estimateGas', [{ from: tx.from, to: tx.to, data: tx.data }])
    .then((g) => Number(BigInt(g as string)))
    .catch(() => undefined);
  await deps.models.Redemption.updateOne(
    { _id: redemptionId(wallet.address, market._id) },
    {
      $setOnInsert: {
        ...scope,
        marketId: market._id,
        conditionId: market.venueRef.externalId,
        wallet: wallet.address,
        path: 'external',
        status: 'prepared',
        requests: 1,
      },
    },
    { upsert: true },
  );
  return {
    ...base,
    success: true,
    status: 'prepared',
    tx_hash: null,
    unsigned_tx: {
      to: tx.to,
      data: tx.data,
      from: tx.from,
      ...(gas ? { gas } : {}),
      chainId: tx.chainId,
      value: 0,
    },
    payout: expected,
    already_redeemed: false,
    error: null,
    message:
      'Sign unsigned_tx with your wallet, send it with POST /api/sdk/wallet/broadcast-tx, then report its hash with POST /api/sdk/redeem/report.',
  };
}

/** Another account's redemption, or a transaction relayed for another account. */
const reportedByAnother = (hash: string) =>
  new AppError(
    409,
    'redemption_of_another_account',
    `Transaction ${hash} is another account's redemption: nothing was settled`,
    'Report the hash of the redemption your own wallet sent (the unsigned_tx of POST /api/sdk/redeem, signed and sent; a deposit wallet: the transaction of POST /api/sdk/dw-redeem/submit); a managed wallet is redeemed by POST /api/sdk/redeem itself.',
  );

const REPORT_FIX =
  'Report the hash of the redemption your wallet sent for this market: the unsigned_tx of POST /api/sdk/redeem, signed by that wallet (a deposit wallet: the transaction of POST /api/sdk/dw-redeem/submit). Nothing was settled.';

/** The refusal of a report whose receipt does not prove this account's redemption of the market. */
function notProven(
  hash: string,
  market: PolymarketMarket,
  holders: string[],
  verdict: Extract<RedemptionVerdict, { proven: false }>,
): AppError {
  const condition = market.venueRef.externalId;
  const wallets = holders.map((h) => getAddress(h)).join(', ');
  switch (verdict.reason) {
    case 'unknown':
      return new AppError(
        404,
        'transaction_not_found',
        `Transaction ${hash} is not on Polygon: nothing was settled`,
        'Report the hash your wallet (or POST /api/sdk/wallet/broadcast-tx) returned; a transaction sent elsewhere a moment ago may not have reached the node yet: report it again once it is mined.',
      );
    case 'pending':
      return new AppError(
        409,
        'redemption_not_mined',
        `Transaction ${hash} is not mined yet: nothing is proven redeemed`,
        'Report it again once eth_getTransactionReceipt shows it mined; a redemption relayed through POST /api/sdk/wallet/broadcast-tx settles on its own when mined.',
      );
    case 'reverted':
      return new AppError(
        409,
        'redemption_reverted',
        `Transaction ${hash} reverted on-chain: nothing was redeemed`,
        'Check the adapter approval (GET /api/polymarket/allowances/{address}), then redeem again.',
      );
    default: {
      const detail = {
        other_condition: `Transaction ${hash} redeems another market: its receipt shows no redemption of condition ${condition} (market ${market._id}) by your wallet ${wallets}`,
        other_wallet: `Transaction ${hash} redeems condition ${condition} from another wallet, not from your wallet ${wallets}`,
        no_redemption: `Transaction ${hash} redeemed nothing: its receipt has no redemption payout`,
        partial: `Transaction ${hash} redeemed only part of market ${market._id}: your wallet ${wallets} still holds shares that pay at its resolution`,
      }[verdict.reason];
      const fix =
        verdict.reason === 'partial'
          ? 'Redeem the whole balance: the unsigned_tx of POST /api/sdk/redeem redeems both outcomes at once; sign it, send it and report that hash. Nothing was settled.'
          : REPORT_FIX;
      return new AppError(409, 'redemption_not_proven', detail, fix, { body: { reason: verdict.reason } });
    }
  }
}

/**
 * `POST /api/sdk/redeem/report`: a redemption the client signed and sent itself. Nothing is taken
 * on the client's word: the receipt must have succeeded and its logs must show this market's
 * condition redeemed from a wallet holding this account's positions (redemption-receipt.ts); the
 * positions held there are then settled, for no more than it paid. Idempotent on the hash (spec
 * §8): the same account reporting it again is a no-op; a hash recorded or relayed for another
 * account, or a receipt that proves nothing of this account's, is refused and settles nothing.
 */
export async function reportRedemption(
  deps: RedeemDeps,
  account: WalletAccount,
  agentId: string,
  body: z.output<typeof RedeemReportSchema>,
): Promise<z.input<typeof RedeemReportResponseSchema>> {
  const scope = await scopeOf(deps, account, agentId, body.market_id);
  const hash = body.tx_hash.toLowerCase();
  const market = await resolvedMarket(deps, body.market_id);
  const answer = (recorded: boolean, payoutMicro: number, settled: number) => ({
    success: true,
    market_id: market._id,
    tx_hash: hash,
    recorded,
    positions_settled: settled,
    payout: fromMicro(payoutMicro),
    message: recorded ? 'Redemption recorded: the position is no longer redeemable.' : 'Already recorded.',
  });
  const claims = await deps.models.Redemption.find({ txHash: hash }).lean();
  if (claims.some((r) => r.userId !== scope.userId || (r.agentId ?? null) !== scope.agentId))
    throw reportedByAnother(hash);
  const mine = claims.find((r) => r.marketId === market._id);
  if (mine?.status === 'redeemed') return answer(false, mine.payoutMicro, 0);
  if (yesPayoutMicro(market) === null) throw notResolved(market);
  const relayed = await deps.models.TxBroadcast.findById(hash, { kind: 1, userId: 1 }).lean();
  if (relayed && relayed.userId !== scope.userId) throw reportedByAnother(hash);
  if (relayed && relayed.kind !== 'redeem')
    throw new AppError(
      400,
      'not_a_redemption',
      `Transaction ${hash} is not a redemption (${relayed.kind})`,
      'Report the hash of the redemption transaction (the one POST /api/sdk/redeem handed out).',
    );
  await walletFor(deps, scope);
  const holders = await scopeHolders(deps.models, scope);
  const verdict = await verifyRedemptionReceipt(deps, hash, {
    conditionId: market.venueRef.externalId,
    holders,
    owedMicro: (proven) => owedToHolders(deps, { ...scope, marketId: market._id }, market, proven),
  });
  if (!verdict.proven) throw notProven(hash, market, holders, verdict);
  const proof = { holders: verdict.holders, payoutMicro: verdict.payoutMicro };
  const holder = verdict.holders[0]!;
  const id = redemptionId(holder, market._id);
  const existing = await deps.models.Redemption.findById(id).lean();
  // Redeemed before under another hash (e.g. the same redemption sent twice): one payout.
  if (existing?.status === 'redeemed') return answer(false, existing.payoutMicro, 0);
  const covered = (await scopePositions(deps.models, scope, market._id)).filter(coveredBy(proof));
  const pending = covered.filter((p) => p.status !== 'settled').length;
  if (covered.length === 0)
    throw new AppError(
      409,
      'nothing_to_redeem',
      `Transaction ${hash} redeemed ${getAddress(holder)}, which holds none of your positions in market ${market._id}`,
      'GET /api/sdk/positions?status=resolved lists the positions with redeemable: true and the wallet holding each (holder_address). Nothing was settled.',
      { body: { not_redeemable: true, reason: 'no_winning_shares' } },
    );
  // Settled meanwhile by the receipt follower of the same transaction (relayed through broadcast-tx).
  if (pending === 0)
    return answer(
      false,
      covered.reduce((sum, p) => sum + p.payoutMicro, 0),
      0,
    );
  const record = () =>
    deps.models.Redemption.updateOne(
      { _id: id },
      {
        $set: { txHash: hash, status: 'sent', error: null },
        $setOnInsert: {
          ...scope,
          marketId: market._id,
          conditionId: market.venueRef.externalId,
          wallet: holder,
          path: 'external',
          requests: 0,
        },
      },
      { upsert: true },
    );
  await record().catch((err: unknown) => {
    if (isDuplicateKey(err)) return record();
    throw err;
  });
  const payoutMicro = await settleRedeemedPositions(deps, { ...scope, marketId: market._id }, proof);
  const done = await deps.models.Redemption.findOneAndUpdate(
    { _id: id },
    { $set: { status: 'redeemed', txHash: hash, payoutMicro, redeemedAt: deps.clock() } },
    { returnDocument: 'after' },
  ).lean();
  return answer(true, done!.payoutMicro, pending);
}
