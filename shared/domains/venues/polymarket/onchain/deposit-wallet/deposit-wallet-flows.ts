import { Interface, MaxUint256 } from 'ethers';
import type { z } from 'zod';
import { AppError } from '../../../../../infra/errors.js';
import type {
  DwApprovalsPrepareResponseSchema,
  DwSubmitRequest,
  DwUpgradeResponseSchema,
  DwWrapPrepareResponseSchema,
} from '../../../../wallets/deposit-wallet.schemas.js';
import type { WalletAccount } from '../../../../wallets/wallet-account.js';
import { writeWallet } from '../../../../wallets/wallet-store.js';
import { readAllowances } from '../allowances.js';
import { OTHER_KNOWN_FUNCTIONS, POLYGON_CONTRACTS } from '../polygon-contracts.js';
import { encodeAllowedCall } from '../relay-rules.js';
import type { BatchCall } from './batch.js';
import { depositWalletAddress } from './deposit-wallet-address.js';
import {
  depositWalletOf,
  externalOwnerOf,
  prepareBatch,
  relayerUnavailable,
  submitAnswer,
  submitBatch,
  type DepositWalletDeps,
} from './deposit-wallet-batches.js';
import { relayerNotConfigured } from './relayer.js';

// The deposit-wallet flows of an external wallet (client-contract §8.5): upgrade (deploy or adopt
// the wallet and trade as signature type 3), the approvals batch that makes it trading-ready, and
// wrapping USDC.e it holds into pUSD. Every batch is built here, signed by the owner, relayed.

const C = POLYGON_CONTRACTS;
const call = (target: string, data: string): BatchCall => ({ target, value: '0', data });
const WRAP = new Interface([`function ${OTHER_KNOWN_FUNCTIONS.wrap.signature}`]);

/**
 * `POST /api/user/wallet/external-upgrade-to-deposit-wallet`: the linked EOA's deposit wallet, at
 * the factory's CREATE2 address (deposit-wallet-address.ts), is deployed through the relayer unless
 * it exists (a wallet created on polymarket.com is adopted as is), and the account trades through
 * it from now on (orders signed as type 3, maker = the deposit wallet). Idempotent.
 */
export async function upgradeToDepositWallet(
  deps: DepositWalletDeps,
  account: WalletAccount,
): Promise<z.input<typeof DwUpgradeResponseSchema>> {
  if (!deps.relayer.configured) throw relayerNotConfigured();
  const { userId, wallet } = await externalOwnerOf(deps, account);
  const owner = wallet.address!;
  const dw = depositWalletAddress(owner);
  const existed = await deps.relayer.deployed(dw).catch((err: unknown) => {
    throw relayerUnavailable(err);
  });
  let txId: string | null = null;
  if (!existed) {
    txId = await deps.relayer.createWallet(owner).catch((err: unknown) => {
      throw relayerUnavailable(err);
    });
    const tx = await deps.relayer.waitFor(txId, 20_000).catch((err: unknown) => {
      throw relayerUnavailable(err);
    });
    if (tx.outcome !== 'done')
      throw new AppError(
        503,
        'deposit_wallet_not_deployed',
        `The relayer has not deployed deposit wallet ${dw} (${tx.state}${tx.error ? `: ${tx.error}` : ''})`,
        'Try again in a minute: the call is idempotent and adopts the wallet once it exists.',
        { retryable: true, body: { deposit_wallet_address: dw, tx_id: txId } },
      );
  }
  if (wallet.signatureType !== 3 || wallet.depositWallet !== dw)
    await writeWallet(deps.models, userId, wallet, { signatureType: 3, depositWallet: dw });
  return {
    success: true,
    wallet_address: owner,
    deposit_wallet_address: dw,
    already_existed: existed,
    wallet_uses_deposit_wallet: true,
    signature_type: 3,
    tx_id: txId,
    message: `${existed ? 'Deposit wallet adopted' : 'Deposit wallet deployed'}: ${dw}, owned by ${owner}. Orders are now signed as type 3 (POLY_1271) with it as maker. Next: set its approvals (POST /api/user/wallet/external/dw-approvals/prepare, the SDK’s activate_polymarket_dw()), and fund it with pUSD.`,
  };
}

/** The combo exchange's approvals (client `activate_combo_dw`): pUSD, and combo position tokens on the PositionManager. */
async function missingComboCalls(deps: DepositWalletDeps, wallet: string): Promise<BatchCall[]> {
  const [pusd, positions] = await Promise.all([
    deps.polygon.allowance(C.pusd, wallet, C.exchangeV3),
    deps.polygon.isApprovedForAll(C.positionManager, wallet, C.exchangeV3),
  ]);
  return [
    ...(pusd > 0n ? [] : [call(C.pusd, encodeAllowedCall('approve', [C.exchangeV3, MaxUint256]))]),
    ...(positions
      ? []
      : [call(C.positionManager, encodeAllowedCall('setApprovalForAll', [C.exchangeV3, true]))]),
  ];
}

/**
 * `POST …/dw-approvals/prepare`: the approvals the deposit wallet lacks, read on chain — the same
 * twelve an EOA's `set_approvals()` signs (GET /api/polymarket/allowances), plus the combo
 * exchange's with `combo` — as one batch for the owner to sign; `already_set` when none is missing.
 */
export async function prepareDepositWalletApprovals(
  deps: DepositWalletDeps,
  account: WalletAccount,
  opts: { combo: boolean },
): Promise<z.input<typeof DwApprovalsPrepareResponseSchema>> {
  const dw = await depositWalletOf(deps, account);
  const calls = await (async () => {
    const allowances = await readAllowances(deps, dw.wallet, { noCache: true, includeTxParams: true });
    const standard = (allowances.transactions ?? []).map((t) => call(t.to, t.data));
    return [...standard, ...(opts.combo ? await missingComboCalls(deps, dw.wallet) : [])];
  })().catch((err: unknown) => {
    throw relayerUnavailable(err);
  });
  if (calls.length === 0)
    return {
      success: true,
      already_set: true,
      deposit_wallet_address: dw.wallet,
      calls_count: 0,
      message: 'Every approval of the deposit wallet is set: nothing to sign.',
    };
  const prepared = await prepareBatch(deps, dw, 'approvals', calls);
  return {
    success: true,
    already_set: false,
    ...prepared,
    calls_count: calls.length,
    message: `Sign typed_data with the key of ${dw.owner} and send it with nonce, deadline and calls to …/dw-approvals/submit (${calls.length} approvals).`,
  };
}

/** `POST …/dw-approvals/submit`. */
export async function submitDepositWalletApprovals(
  deps: DepositWalletDeps,
  account: WalletAccount,
  body: DwSubmitRequest,
) {
  const dw = await depositWalletOf(deps, account);
  const { record } = await submitBatch(deps, dw, 'approvals', body);
  return submitAnswer(record, `${record.calls.length} approvals set on deposit wallet ${dw.wallet}.`);
}

/**
 * `POST /api/user/wallet/wrap-on-dw/external/prepare`: the USDC.e the deposit wallet holds, wrapped
 * 1:1 into pUSD for the wallet itself by the CollateralOnramp (`wrap(USDC.e, wallet, amount)`,
 * after `approve(onramp)` when the allowance is short). `amount_units: 0`: nothing to wrap.
 */
export async function prepareWrapOnDepositWallet(
  deps: DepositWalletDeps,
  account: WalletAccount,
): Promise<z.input<typeof DwWrapPrepareResponseSchema>> {
  const dw = await depositWalletOf(deps, account);
  const [amount, allowance] = await Promise.all([
    deps.polygon.balanceOf(C.usdcBridged, dw.wallet),
    deps.polygon.allowance(C.usdcBridged, dw.wallet, C.collateralOnramp),
  ]).catch((err: unknown) => {
    throw relayerUnavailable(err);
  });
  if (amount === 0n)
    return {
      success: true,
      amount_units: 0,
      deposit_wallet_address: dw.wallet,
      message: 'The deposit wallet holds no USDC.e: nothing to wrap.',
    };
  const calls = [
    ...(allowance >= amount
      ? []
      : [call(C.usdcBridged, encodeAllowedCall('approve', [C.collateralOnramp, MaxUint256]))]),
    call(C.collateralOnramp, WRAP.encodeFunctionData('wrap', [C.usdcBridged, dw.wallet, amount])),
  ];
  const prepared = await prepareBatch(deps, dw, 'wrap', calls, { amountUnits: amount.toString() });
  return {
    success: true,
    amount_units: Number(amount),
    ...prepared,
    message: `Sign typed_data with the key of ${dw.owner} and send it to /api/user/wallet/wrap-on-dw/external/submit: ${Number(amount) / 1e6} USDC.e become pUSD in ${dw.wallet}.`,
  };
}

/** `POST /api/user/wallet/wrap-on-dw/external/submit`. */
export async function submitWrapOnDepositWallet(
  deps: DepositWalletDeps,
  account: WalletAccount,
  body: DwSubmitRequest,
) {
  const dw = await depositWalletOf(deps, account);
  const { record } = await submitBatch(deps, dw, 'wrap', body);
  return {
    ...submitAnswer(
      record,
      `${Number(record.amountUnits ?? 0) / 1e6} USDC.e wrapped into pUSD in ${dw.wallet}.`,
    ),
    amount_units: Number(record.amountUnits ?? 0),
  };
}
