import type { InfraDeps } from '../../../../infra/infra-deps.js';
import type { Models } from '../../../models.js';
import type { PolygonRpc } from './polygon-rpc.js';
import { RpcError, sendRawTransaction, transactionReceipt } from './broadcast-rpc.js';
import type { BroadcastStatus } from '../../../wallets/broadcast.model.js';
import { finishRedemption } from './settle-redemption.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type BroadcastWorkerDeps = Pick<InfraDeps, 'queues' | 'clock'> & {
  models: Models;
  polygon: PolygonRpc;
};

type WorkerDeps = Pick<BroadcastWorkerDeps, 'polygon' | 'models' | 'queues' | 'clock'>;

/**
 * The node's answers that mean "this transaction reached the chain before": the same bytes are in
 * the pool (`already known`), or its nonce was used, most likely by this very transaction on an
 * earlier send (`nonce too low`). The client treats both as success (client-contract §8.3); the
 * receipt follow-up tells a mined transaction from one that was replaced.
 */
const SENT_BEFORE = /already known|nonce too low/i;

/** Receipt polls: every 3 s for 10 minutes (Polygon mines every ~2 s; a stuck one is reported). */
export const RECEIPT_POLL_MS = 3000;
export const MAX_RECEIPT_POLLS = 200;

export interface BroadcastOutcome {
  status: BroadcastStatus;
  error: string | null;
}

const outcomeOf = (rec: { status: BroadcastStatus; error: string | null }): BroadcastOutcome => ({
  status: rec.status,
  error: rec.error,
});

/**
 * Sends a recorded transaction (job `broadcast-tx`). Idempotent on the hash: a mined or reverted
 * record is final and not sent again; any other state is sent (again), since a resend cannot do
 * anything twice. A network failure throws (BullMQ retries); a node refusal is recorded as `failed`
 * with the node's words, which the client reads (e.g. `underpriced` → it re-signs with more gas).
 */
export async function sendBroadcast(deps: WorkerDeps, hash: string): Promise<BroadcastOutcome> {
  const { TxBroadcast } = deps.models;
  const rec = await TxBroadcast.findById(hash).lean();
  if (!rec) return { status: 'failed', error: 'unknown transaction' };
  if (rec.status === 'mined' || rec.receiptStatus !== null) return outcomeOf(rec);
  try {
    await sendRawTransaction(deps, rec.raw);
  } catch (err) {
    if (!(err instanceof RpcError)) throw err;
    if (!SENT_BEFORE.test(err.message)) {
      const failed = await TxBroadcast.findOneAndUpdate(
        { _id: hash, status: { $in: ['queued', 'failed'] }, receiptStatus: null },
        { $set: { status: 'failed', error: err.message } },
        { returnDocument: 'after' },
      ).lean();
      // A refused redemption is over (the next one is signed anew), not left waiting as `sent`.
      if (failed?.kind === 'redeem') await finishRedemption(deps, hash, false, err.message);
      return failed ? outcomeOf(failed) : outcomeOf((await TxBroadcast.findById(hash).lean())!);
    }
  }
  // Guarded so that a resend answered `nonce too low` never turns a mined record back into `sent`.
  await TxBroadcast.updateOne(
    { _id: hash, status: { $in: ['queued', 'failed'] }, receiptStatus: null },
    { $set: { status: 'sent', error: null, sentAt: deps.clock() } },
  );
  return followReceipt(deps, hash, 0);
}

/**
 * Reads the receipt once (job `follow-tx-receipt`, and right after a send): mined → `mined`, or
 * `failed` with `reverted` for a status-0 receipt; still pending → the next poll, delayed. A
 * transaction with no receipt after MAX_RECEIPT_POLLS was dropped or replaced: `failed`, so the
 * client can sign it again. A redemption's end is also booked on the redemption (settle-redemption.ts).
 */
export async function followReceipt(deps: WorkerDeps, hash: string, poll: number): Promise<BroadcastOutcome> {
  const { TxBroadcast } = deps.models;
  const rec = await TxBroadcast.findById(hash).lean();
  if (!rec) return { status: 'failed', error: 'unknown transaction' };
  if (rec.status !== 'sent') return outcomeOf(rec);
  const receipt = await transactionReceipt(deps, hash);
  if (receipt) {
    const mined = receipt.status === 1;
    const done = await TxBroadcast.findOneAndUpdate(
      { _id: hash },
      {
        $set: {
          status: mined ? 'mined' : 'failed',
          error: mined ? null : 'reverted',
          receiptStatus: receipt.status,
          blockNumber: receipt.blockNumber,
          minedAt: deps.clock(),
        },
      },
      { returnDocument: 'after' },
    ).lean();
    if (done!.kind === 'redeem') await finishRedemption(deps, hash, mined);
    return outcomeOf(done!);
  }
  if (poll >= MAX_RECEIPT_POLLS) {
    const error = `no receipt after ${(MAX_RECEIPT_POLLS * RECEIPT_POLL_MS) / 60_000} minutes: dropped or replaced`;
    await TxBroadcast.updateOne({ _id: hash, status: 'sent' }, { $set: { status: 'failed', error } });
    if (rec.kind === 'redeem') await finishRedemption(deps, hash, false, error);
    return { status: 'failed', error };
  }
  await deps.queues.enqueue('follow-tx-receipt', { hash, poll: poll + 1 }, { delay: RECEIPT_POLL_MS });
  return outcomeOf(rec);
}
