import { getAddress, recoverAddress } from 'ethers';
import type { InfraDeps } from '../../../../../infra/infra-deps.js';
import { AppError } from '../../../../../infra/errors.js';
import { VenueHttpError } from '../../../../../infra/http/venue-http-client.js';
import type { Models } from '../../../../models.js';
import { venueUnavailable } from '../../../venue-unavailable.js';
import type {
  DepositWalletBatchKind,
  DepositWalletBatchRecord,
  DepositWalletBatchModels,
} from './deposit-wallet-batch.model.js';
import type { DwSubmitRequest } from '../../../../wallets/deposit-wallet.schemas.js';
import { walletUserOf, type WalletAccount } from '../../../../wallets/wallet-account.js';
import { readWallet } from '../../../../wallets/wallet-store.js';
import type { PolygonRpc } from '../polygon-rpc.js';
import { BATCH_DEADLINE_S, batchDigest, batchTypedData, sameCalls, type BatchCall } from './batch.js';
import { relayerNotConfigured, type Relayer } from './relayer.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type DepositWalletDeps = Pick<InfraDeps, 'env' | 'log' | 'clock'> & {
  models: Models & DepositWalletBatchModels;
  polygon: PolygonRpc;
  relayer: Relayer;
};

/** How long a submit waits for the relayer to execute the batch before answering `submitted`. */
export const RELAYER_WAIT_MS = 20_000;

/** The deposit wallet a call acts on: the account's, owned by its linked EOA. */
export interface DepositWalletOf {
  userId: string;
  /** The owner EOA (checksummed): signs the batches and the type-3 orders. */
  owner: string;
  wallet: string;
}

export const upgradeFix =
  'Upgrade first: POST /api/user/wallet/external-upgrade-to-deposit-wallet (the SDK’s import_polymarket_wallet() does it), then run this again.';

/** The account's external EOA; a managed wallet or none cannot own a deposit wallet here. */
export async function externalOwnerOf(deps: Pick<DepositWalletDeps, 'models'>, account: WalletAccount) {
  const userId = walletUserOf(account);
  const wallet = await readWallet(deps.models, userId);
  if (!wallet?.address || wallet.ownership !== 'external')
    throw new AppError(
      409,
      'no_external_wallet',
      'Deposit wallets are owned by an external wallet, and none is linked to this account',
      'Link your EOA first (GET /api/sdk/wallet/link/challenge, then POST /api/sdk/wallet/link; the SDK’s link_wallet()).',
    );
  return { userId, wallet };
}

export async function depositWalletOf(
  deps: Pick<DepositWalletDeps, 'models'>,
  account: WalletAccount,
): Promise<DepositWalletOf> {
  const { userId, wallet } = await externalOwnerOf(deps, account);
  if (wallet.signatureType !== 3 || !wallet.depositWallet)
    throw new AppError(
      409,
      'no_deposit_wallet',
      `The linked wallet ${wallet.address} does not trade through a deposit wallet`,
      upgradeFix,
    );
  return { userId, owner: wallet.address!, wallet: wallet.depositWallet };
}

/** A relayer or chain read that failed: the venue is unavailable (503/502 with a fix). */
export function relayerUnavailable(err: unknown): unknown {
  return err instanceof VenueHttpError ? venueUnavailable(err) : err;
}

export interface PreparedBatchAnswer {
  deposit_wallet_address: string;
  typed_data: ReturnType<typeof batchTypedData>;
  nonce: string;
  deadline: string;
  calls: BatchCall[];
}

/**
 * Records a batch of `calls` for the wallet at its current nonce and returns what the owner signs.
 * The same batch asked for twice within a second is one record (its digest is its id).
 */
export async function prepareBatch(
  deps: DepositWalletDeps,
  dw: DepositWalletOf,
  kind: DepositWalletBatchKind,
  calls: BatchCall[],
  extra: { marketId?: string; amountUnits?: string } = {},
): Promise<PreparedBatchAnswer> {
  if (!deps.relayer.configured) throw relayerNotConfigured();
  const nonce = await deps.relayer.nonce(dw.owner).catch((err: unknown) => {
    throw relayerUnavailable(err);
  });
  const deadline = String(Math.floor(deps.clock().getTime() / 1000) + BATCH_DEADLINE_S);
  const batch = { wallet: dw.wallet, nonce: nonce.toString(), deadline, calls };
  await deps.models.DepositWalletBatch.updateOne(
    { _id: batchDigest(batch) },
    {
      $setOnInsert: {
        userId: dw.userId,
        kind,
        wallet: dw.wallet,
        owner: dw.owner,
        nonce: batch.nonce,
        deadline,
        calls,
        marketId: extra.marketId ?? null,
        amountUnits: extra.amountUnits ?? null,
        status: 'prepared',
      },
    },
    { upsert: true },
  );
  return {
    deposit_wallet_address: dw.wallet,
    typed_data: batchTypedData(batch),
    nonce: batch.nonce,
    deadline,
    calls,
  };
}

const notPrepared = () =>
  new AppError(
    409,
    'batch_not_prepared',
    'This batch was not prepared for your deposit wallet (or its nonce, deadline or calls were changed)',
    'Call the matching prepare endpoint again and send back its nonce, deadline and calls unchanged with the signature of its typed_data.',
  );

export interface SubmittedBatch {
  record: DepositWalletBatchRecord;
  /** The batch executed on this call (not before): the caller books its effects. */
  executedNow: boolean;
}

/**
 * Relays a batch the owner signed: it must be one the service prepared for this wallet (same
 * nonce, deadline and calls, hence the same digest) and signed by the wallet's owner. One
 * submission at a time per batch; an executed batch answers as it is (idempotent). Waits up to
 * RELAYER_WAIT_MS for the relayer's outcome.
 */
export async function submitBatch(
  deps: DepositWalletDeps,
  dw: DepositWalletOf,
  kind: DepositWalletBatchKind,
  body: DwSubmitRequest,
): Promise<SubmittedBatch> {
  if (!deps.relayer.configured) throw relayerNotConfigured();
  const calls = body.calls.map((c) => ({
    target: getAddress(c.target),
    value: c.value,
    data: c.data.toLowerCase(),
  }));
  const batch = { wallet: dw.wallet, nonce: body.nonce, deadline: body.deadline, calls };
  const digest = batchDigest(batch);
  const rec = await deps.models.DepositWalletBatch.findById(digest).lean();
  if (!rec || rec.userId !== dw.userId || rec.kind !== kind || !sameCalls(rec.calls, calls))
    throw notPrepared();
  if (rec.status === 'executed' || rec.status === 'submitted' || rec.status === 'submitting')
    return { record: await followSubmitted(deps, rec), executedNow: false };

  const signature = body.signature.startsWith('0x') ? body.signature : `0x${body.signature}`;
  let signer: string | null = null;
  try {
    signer = recoverAddress(digest, signature);
  } catch {
    signer = null;
  }
  if (signer !== dw.owner)
    throw new AppError(
      400,
      'signature_mismatch',
      `The batch signature is not ${dw.owner}'s (the deposit wallet's owner)${signer ? `: it was signed by ${signer}` : ''}`,
      'Sign typed_data exactly as prepare returned it (EIP-712, eth_signTypedData_v4) with the key of your linked EOA.',
    );
  if (BigInt(body.deadline) <= BigInt(Math.floor(deps.clock().getTime() / 1000)))
    throw new AppError(
      409,
      'batch_expired',
      `The batch expired at ${body.deadline} (unix seconds)`,
      'Prepare it again and sign the new typed_data.',
    );

  // One submission: the transition out of prepared/failed is the lock.
  const taken = await deps.models.DepositWalletBatch.findOneAndUpdate(
    { _id: digest, status: { $in: ['prepared', 'failed'] } },
    { $set: { status: 'submitting', error: null } },
    { returnDocument: 'after' },
  ).lean();
  if (!taken) return { record: await followSubmitted(deps, rec), executedNow: false };

  let txId: string;
  try {
    txId = await deps.relayer.submitBatch({ from: dw.owner, ...batch, signature });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    await deps.models.DepositWalletBatch.updateOne(
      { _id: digest },
      { $set: { status: 'failed', error: why } },
    );
    if (err instanceof VenueHttpError && err.kind === 'client')
      throw new AppError(
        409,
        'batch_refused',
        `The relayer refused the batch: ${why}`,
        'Prepare it again (the wallet’s nonce may have moved on) and sign the new typed_data.',
        { body: { deposit_wallet_address: dw.wallet } },
      );
    throw relayerUnavailable(err);
  }
  await deps.models.DepositWalletBatch.updateOne(
    { _id: digest },
    { $set: { status: 'submitted', relayerTxId: txId } },
  );
  const record = await settleFromRelayer(deps, digest, txId, RELAYER_WAIT_MS);
  return { record, executedNow: record.status === 'executed' };
}

/** A batch already on its way: asks the relayer where it stands (briefly) and records that. */
async function followSubmitted(deps: DepositWalletDeps, rec: DepositWalletBatchRecord) {
  if (rec.status === 'executed' || !rec.relayerTxId) return rec;
  return settleFromRelayer(deps, rec._id, rec.relayerTxId, 2_000);
}

async function settleFromRelayer(deps: DepositWalletDeps, digest: string, txId: string, waitMs: number) {
  const tx = await deps.relayer.waitFor(txId, waitMs).catch((err: unknown) => {
    throw relayerUnavailable(err);
  });
  const status = tx.outcome === 'done' ? 'executed' : tx.outcome === 'failed' ? 'failed' : 'submitted';
  const rec = await deps.models.DepositWalletBatch.findOneAndUpdate(
    { _id: digest, status: { $ne: 'executed' } },
    { $set: { status, txHash: tx.hash, error: tx.outcome === 'failed' ? (tx.error ?? tx.state) : null } },
    { returnDocument: 'after' },
  ).lean();
  return rec ?? (await deps.models.DepositWalletBatch.findById(digest).lean())!;
}

/** The common answer of a submit, from the batch as recorded. */
export function submitAnswer(rec: DepositWalletBatchRecord, done: string) {
  if (rec.status === 'failed')
    throw new AppError(
      409,
      'batch_failed',
      `The batch reverted on chain: ${rec.error ?? 'no reason given'}`,
      'Nothing was changed. Check the wallet (balances, approvals), then prepare it again and sign the new typed_data.',
      { body: { deposit_wallet_address: rec.wallet, tx_id: rec.relayerTxId, tx_hash: rec.txHash } },
    );
  return {
    success: true,
    deposit_wallet_address: rec.wallet,
    status: rec.status,
    tx_id: rec.relayerTxId,
    tx_hash: rec.txHash,
    calls_executed: rec.status === 'executed' ? rec.calls.length : 0,
    message:
      rec.status === 'executed'
        ? done
        : 'The relayer has the batch and has not executed it yet: send the same request again to follow it.',
  };
}
