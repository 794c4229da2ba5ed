import type { InfraDeps } from '../../../../infra/infra-deps.js';
import type { Models } from '../../../models.js';
import type { z } from 'zod';
import { AppError } from '../../../../infra/errors.js';
import type { WalletAccount } from '../../../wallets/wallet-account.js';
import { walletOf } from '../../../wallets/managed-wallet.js';
import type { BroadcastOutcome } from './broadcast-worker.js';
import type { BroadcastResponseSchema } from '../../../wallets/broadcast.schemas.js';
import type { RelayRefusalCode } from './relay-refusal.js';
import { checkRelayableTransaction } from './tx-allowlist.js';
import { recordBroadcast } from './broadcast-record.js';
import { linkRelayedRedemption } from './relayed-redemption.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type BroadcastTxDeps = Pick<InfraDeps, 'log' | 'queues'> & { models: Models };

/**
 * How long the request waits for the worker's send. Sending is one RPC call; past this the answer
 * is `submitted` and the record (GET /api/sdk/wallet/broadcasts) tells the rest.
 */
export const BROADCAST_WAIT_MS = 8000;

type BroadcastAnswer = z.output<typeof BroadcastResponseSchema>;

/** "Signed by someone else" is about who may relay it (403); every other refusal is about the bytes (400). */
const statusOf = (code: RelayRefusalCode) => (code === 'sender_mismatch' ? 403 : 400);

/** The linked external wallet of the caller's human: the only sender the relay accepts from them. */
async function senderOf(deps: Pick<BroadcastTxDeps, 'models'>, account: WalletAccount): Promise<string> {
  if (account.owner.kind !== 'user')
    throw new AppError(
      403,
      'agent_not_claimed',
      'Agent must be claimed before it can relay transactions',
      'Ask your human to claim this agent at claim_url, then link their wallet with POST /api/sdk/wallet/link.',
      { body: { claim_url: account.claimUrl } },
    );
  const wallet = await walletOf(deps, account.owner);
  // A managed wallet's key never leaves the service, so nothing a client signed can come from it.
  if (wallet?.ownership !== 'external')
    throw new AppError(
      409,
      'no_external_wallet',
      'No external wallet is linked to this account',
      'Link the wallet that signs the transaction with GET /api/sdk/wallet/link/challenge and POST /api/sdk/wallet/link.',
    );
  return wallet.address;
}

/**
 * `POST /api/sdk/wallet/broadcast-tx`: the allow-list decides first (a refusal sends and records
 * nothing); an allowed transaction is recorded under its hash and handed to the `tx-broadcasts`
 * queue, and the answer waits for the send. Asking again for the same bytes is one record and one
 * more (harmless) send.
 */
export async function broadcastTx(
  deps: Pick<BroadcastTxDeps, 'models' | 'queues' | 'log'>,
  account: WalletAccount,
  agentId: string | null,
  signedTx: string,
): Promise<BroadcastAnswer> {
  const sender = await senderOf(deps, account);
  const check = checkRelayableTransaction(signedTx, { sender });
  if (!check.ok) {
    deps.log.info({ code: check.code, sender }, 'broadcast refused by the allow-list');
    throw new AppError(statusOf(check.code), check.code, check.error, check.fix);
  }
  const { tx, kind } = check;
  const hash = tx.hash.toLowerCase();
  const rec = await recordBroadcast(deps.models, {
    hash,
    userId: account.owner.id,
    agentId,
    sender: tx.from,
    to: tx.to,
    kind,
    nonce: tx.nonce,
    // Never the caller's own spelling: the node must get exactly what the allow-list passed.
    raw: tx.raw,
  });
  // A redemption is linked to its market before it is sent, so it settles when mined, reported or not.
  if (kind === 'redeem' && check.call.conditionId)
    await linkRelayedRedemption(deps, {
      hash,
      userId: account.owner.id,
      sender: tx.from,
      conditionId: check.call.conditionId,
    });
  const outcome = await deps.queues.enqueueAndWait<BroadcastOutcome>(
    'broadcast-tx',
    { hash, request: rec.requests },
    BROADCAST_WAIT_MS,
  );
  const answer = (o: BroadcastOutcome | { status: 'submitted'; error: null }): BroadcastAnswer => ({
    success: o.status !== 'failed',
    tx_hash: hash,
    status: o.status,
    kind,
    error: o.error,
  });
  if (outcome.state === 'completed') return answer(outcome.result);
  // Pending (or the job still retrying a network failure): the record says where it stands.
  const now = await deps.models.TxBroadcast.findById(hash).lean();
  return now && now.status !== 'queued' ? answer(now) : answer({ status: 'submitted', error: null });
}

/** `GET /api/sdk/wallet/broadcasts`: the caller's human's relayed transactions, newest first. */
export async function listBroadcasts(
  deps: Pick<BroadcastTxDeps, 'models'>,
  account: WalletAccount,
  limit: number,
) {
  if (account.owner.kind !== 'user') return { broadcasts: [] };
  const rows = await deps.models.TxBroadcast.find({ userId: account.owner.id })
    .sort({ createdAt: -1 })
    .limit(limit)
    .lean();
  return {
    broadcasts: rows.map((r) => ({
      tx_hash: r._id,
      sender: r.sender,
      to: r.to,
      kind: r.kind,
      nonce: r.nonce,
      status: r.status,
      error: r.error,
      receipt_status: r.receiptStatus,
      block_number: r.blockNumber,
      created_at: r.createdAt.toISOString(),
      updated_at: r.updatedAt.toISOString(),
    })),
  };
}
