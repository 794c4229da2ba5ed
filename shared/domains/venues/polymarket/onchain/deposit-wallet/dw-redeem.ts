import type { z } from 'zod';
import { AppError } from '../../../../../infra/errors.js';
import { fromMicro } from '../../../../money.js';
import type {
  DwRedeemSubmitRequestSchema,
  DwRedeemSubmitResponseSchema,
} from '../../../../wallets/deposit-wallet.schemas.js';
import type {
  DwRedeemPrepareResponseSchema,
  RedeemRequestSchema,
} from '../../../../wallets/redeem.schemas.js';
import { redemptionId } from '../../../../wallets/redemption.model.js';
import type { WalletAccount } from '../../../../wallets/wallet-account.js';
import { holdingPayoutMicro, yesPayoutMicro } from '../../../../markets/resolution.js';
import { readWallet } from '../../../../wallets/wallet-store.js';
import { redemptionTransaction } from '../approval-transactions.js';
import { POLYGON_CONTRACTS } from '../polygon-contracts.js';
import { resolvedMarket, scopeOf, type RedeemDeps } from '../redeem.js';
import { redeemingWallet } from '../redeeming-wallet.js';
import { encodeAllowedCall } from '../relay-rules.js';
import { settleRedeemedPositions } from '../settle-redemption.js';
import type { BatchCall } from './batch.js';
import {
  depositWalletOf,
  prepareBatch,
  relayerUnavailable,
  submitAnswer,
  submitBatch,
  type DepositWalletDeps,
} from './deposit-wallet-batches.js';

// Redemption from a deposit wallet (client-contract §8.4): the winning shares sit in the deposit
// wallet (the maker of type-3 orders), so the redeem call must come from it: a batch the owner
// signs and the relayer executes — `setApprovalForAll(adapter)` on the CTF when the adapter is not
// an operator yet, then the collateral adapter's `redeemPositions` (the one an EOA signs, §8.3),
// which pays pUSD into the wallet. The client validates exactly this shape before signing.

type Deps = RedeemDeps & DepositWalletDeps;
type PrepareAnswer = z.input<typeof DwRedeemPrepareResponseSchema>;

const C = POLYGON_CONTRACTS;

/** Whether the account trades through a deposit wallet (else the client takes the EOA path). */
async function usesDepositWallet(deps: Pick<Deps, 'models'>, userId: string) {
  const w = await readWallet(deps.models, userId);
  return w?.ownership === 'external' && w.signatureType === 3 && !!w.depositWallet;
}

/**
 * `POST /api/sdk/dw-redeem/prepare`. Routing answers first (all 200): `not_redeemable` before
 * resolution; `eoa_fallback` when the account has no deposit wallet, or the wallet holds none of
 * the market's tokens while the EOA does (positions bought as type 0 before the upgrade);
 * `already_redeemed` when it was redeemed here or neither holds any. Otherwise the batch to sign.
 */
export async function prepareDepositWalletRedeem(
  deps: Deps,
  account: WalletAccount,
  agentId: string,
  body: z.output<typeof RedeemRequestSchema>,
): Promise<PrepareAnswer> {
  const scope = await scopeOf(deps, account, agentId, body.market_id);
  const market = await resolvedMarket(deps, body.market_id);
  const base = { success: true, market_id: market._id };
  const payoutYes = yesPayoutMicro(market);
  if (payoutYes === null)
    return {
      ...base,
      success: false,
      not_redeemable: true,
      reason: 'market_not_settled',
      detail: `market status ${market.status}`,
      message: 'The market has not resolved yet: nothing can be redeemed.',
    };
  const eoaFallback = (why: string): PrepareAnswer => ({
    ...base,
    eoa_fallback: true,
    condition_id: market.venueRef.externalId,
    message: `${why}: redeem with POST /api/sdk/redeem.`,
  });
  // An agent with its own (managed) wallet redeems it through /api/sdk/redeem, signed by the service.
  if (scope.agentId || !(await usesDepositWallet(deps, scope.userId))) {
    const wallet = await redeemingWallet(deps, scope);
    const rec =
      wallet && (await deps.models.Redemption.findById(redemptionId(wallet.address, market._id)).lean());
    if (rec?.status === 'redeemed')
      return { ...base, already_redeemed: true, message: 'Already redeemed: nothing more to pay.' };
    return eoaFallback('This account does not trade through a deposit wallet');
  }
  const dw = await depositWalletOf(deps, account);
  const done = await deps.models.Redemption.findById(redemptionId(dw.wallet, market._id)).lean();
  if (done?.status === 'redeemed')
    return { ...base, already_redeemed: true, message: 'Already redeemed: nothing more to pay.' };

  const tokens = [market.venueRef.yesTokenId, market.venueRef.noTokenId].filter((t): t is string => !!t);
  const [dwHeld, eoaHeld, approved] = await Promise.all([
    Promise.all(tokens.map((t) => deps.polygon.tokenBalance(C.ctf, dw.wallet, t))),
    Promise.all(tokens.map((t) => deps.polygon.tokenBalance(C.ctf, dw.owner, t))),
    deps.polygon.isApprovedForAll(C.ctf, dw.wallet, adapterOf(market.venueRef.negRisk === true)),
  ]).catch((err: unknown) => {
    throw relayerUnavailable(err);
  });
  const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);
  if (sum(dwHeld) === 0n) {
    if (sum(eoaHeld) > 0n)
      return eoaFallback(`The shares are held by your EOA ${dw.owner}, not the deposit wallet`);
    return {
      ...base,
      already_redeemed: true,
      message: 'The deposit wallet holds none of this market’s shares: nothing to redeem.',
    };
  }

  const negRisk = market.venueRef.negRisk === true;
  const redeem = redemptionTransaction(dw.wallet, { conditionId: market.venueRef.externalId, negRisk });
  const calls: BatchCall[] = [
    ...(approved
      ? []
      : [
          {
            target: C.ctf,
            value: '0',
            data: encodeAllowedCall('setApprovalForAll', [adapterOf(negRisk), true]),
          },
        ]),
    { target: redeem.to, value: '0', data: redeem.data },
  ];
  const prepared = await prepareBatch(deps, dw, 'redeem', calls, { marketId: market._id });
  await deps.models.Redemption.updateOne(
    { _id: redemptionId(dw.wallet, market._id) },
    {
      $setOnInsert: {
        ...scope,
        marketId: market._id,
        conditionId: market.venueRef.externalId,
        wallet: dw.wallet,
        path: 'deposit-wallet',
        status: 'prepared',
        requests: 1,
      },
    },
    { upsert: true },
  );
  return {
    ...base,
    ...prepared,
    condition_id: market.venueRef.externalId,
    // A 50-50 (void) resolution has no winning side: both pay half (`is_cancelled`, as the client names it).
    ...(market.outcome === null ? {} : { outcome: market.outcome ? ('yes' as const) : ('no' as const) }),
    negative_risk: negRisk,
    is_cancelled: market.outcome === null,
    expected_payout_pusd: fromMicro(
      holdingPayoutMicro(
        { sharesYesMicro: Number(dwHeld[0] ?? 0n), sharesNoMicro: Number(dwHeld[1] ?? 0n) },
        payoutYes,
      ),
    ),
    message: `Sign typed_data with the key of ${dw.owner} and send it to POST /api/sdk/dw-redeem/submit: the adapter pays the winning shares of ${dw.wallet} in pUSD.`,
  };
}

const adapterOf = (negRisk: boolean) => (negRisk ? C.negRiskCtfCollateralAdapter : C.ctfCollateralAdapter);

/**
 * `POST /api/sdk/dw-redeem/submit`: relays the signed redemption batch; once executed, the wallet's
 * positions in the market are settled (once, whoever finishes first) and the redemption recorded.
 */
export async function submitDepositWalletRedeem(
  deps: Deps,
  account: WalletAccount,
  agentId: string,
  body: z.output<typeof DwRedeemSubmitRequestSchema>,
): Promise<z.input<typeof DwRedeemSubmitResponseSchema>> {
  const scope = await scopeOf(deps, account, agentId, body.market_id);
  const market = await resolvedMarket(deps, body.market_id);
  const dw = await depositWalletOf(deps, account);
  const { record } = await submitBatch(deps, dw, 'redeem', body);
  if (record.marketId !== market._id)
    throw new AppError(
      409,
      'batch_not_prepared',
      `This batch redeems market ${record.marketId}, not ${market._id}`,
      'Send the market_id you prepared the redemption for.',
    );
  const answer = submitAnswer(record, `Redeemed market ${market._id} into ${dw.wallet}.`);
  let payoutMicro = 0;
  if (record.status === 'executed') {
    payoutMicro = await settleRedeemedPositions(deps, {
      userId: scope.userId,
      agentId: null,
      marketId: market._id,
    });
    await deps.models.Redemption.updateOne(
      { _id: redemptionId(dw.wallet, market._id), status: { $ne: 'redeemed' } },
      {
        $set: {
          status: 'redeemed',
          txHash: record.txHash,
          payoutMicro,
          error: null,
          redeemedAt: deps.clock(),
        },
        $setOnInsert: {
          userId: scope.userId,
          agentId: null,
          marketId: market._id,
          conditionId: market.venueRef.externalId,
          wallet: dw.wallet,
          path: 'deposit-wallet',
          requests: 1,
        },
      },
      { upsert: true },
    ).catch((err: unknown) => {
      // Redeemed meanwhile by a concurrent submit of the same batch: its record stands.
      if ((err as { code?: number }).code !== 11000) throw err;
    });
  }
  return { ...answer, market_id: market._id, payout_pusd: fromMicro(payoutMicro) };
}
