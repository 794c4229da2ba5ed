import type { InfraDeps } from '../../../../infra/infra-deps.js';
import type { Models } from '../../../models.js';
import type { PolygonRpc } from './polygon-rpc.js';
import { randomUUID } from 'node:crypto';
import { venueRefOn } from '../../../markets/venue-ref.js';
import { keccak256, type Wallet as EthersWallet } from 'ethers';
import { AppError } from '../../../../infra/errors.js';
import { afterWrite } from '../../../../infra/faults.js';
import { fromMicro } from '../../../money.js';
import {
  approvalKey,
  approvalTransactions,
  redemptionTransaction,
  type UnsignedTx,
} from './approval-transactions.js';
import { recordBroadcast } from './broadcast-record.js';
import { sendBroadcast, type BroadcastOutcome } from './broadcast-worker.js';
import { POLYGON_CONTRACTS } from './polygon-contracts.js';
import { PolygonRpcError } from './polygon-rpc.js';
import {
  redemptionId,
  type RedemptionRecord,
  type RedemptionStatus,
} from '../../../wallets/redemption.model.js';
import { finishRedemption } from './settle-redemption.js';
import { redeemingWallet, type RedemptionScope } from './redeeming-wallet.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type RedeemPositionDeps = Pick<InfraDeps, 'env' | 'log' | 'redis' | 'queues' | 'clock'> & {
  models: Models;
  polygon: PolygonRpc;
};

type RedeemDeps = Pick<
  RedeemPositionDeps,
  'models' | 'polygon' | 'queues' | 'clock' | 'env' | 'redis' | 'log'
>;

/** What a managed redemption came to (the job's result, read by `POST /api/sdk/redeem`). */
export interface RedeemOutcome {
  status: RedemptionStatus;
  tx_hash: string | null;
  payout: number;
  error: string | null;
}

export const outcomeOf = (r: RedemptionRecord): RedeemOutcome => ({
  status: r.status,
  tx_hash: r.txHash,
  payout: fromMicro(r.payoutMicro),
  error: r.error,
});

/** Used when the redemption is signed while its adapter approval is still in the pool (estimating would revert). */
const REDEEM_GAS_FALLBACK = 300_000n;
/** Head-room over the node's estimate, as the official client signs (client-contract §8.4). */
export const gasWithMargin = (estimate: bigint) => (estimate * 13n) / 10n;

const hexBig = async (deps: RedeemDeps, method: string, params: unknown[]) =>
  BigInt((await deps.polygon.request(method, params)) as string);

/**
 * One signer's transactions are numbered by nonce: two jobs signing for one managed wallet at once
 * would take the same nonce and one would be dropped. A Redis lock per address serialises
 * sign-and-send; a job that finds it taken fails retryably and BullMQ tries again shortly. It lives
 * as long as a job's own lock (WORKER_LOCK_DURATION_MS): a worker that dies holding it frees it
 * when its job would be handed to another worker anyway.
 */
export async function withNonceLock<T>(deps: RedeemDeps, address: string, fn: () => Promise<T>): Promise<T> {
  const key = `nonce-lock:${address.toLowerCase()}`;
  const token = randomUUID();
  if ((await deps.redis.set(key, token, 'PX', deps.env.WORKER_LOCK_DURATION_MS, 'NX')) !== 'OK')
    throw new AppError(
      503,
      'wallet_busy',
      `Another transaction of ${address} is being signed`,
      'Retried shortly.',
      { retryable: true },
    );
  try {
    return await fn();
  } finally {
    // Only our own lock: a lock that expired and was taken by another job is theirs.
    if ((await deps.redis.get(key)) === token) await deps.redis.del(key);
  }
}

/**
 * Signs `call` for the managed wallet as an EIP-1559 transaction at the next pending nonce (with
 * `value` wei of POL: the gas sponsor's top-up of managed-approvals.ts, which sends no calldata).
 */
export async function signCall(
  deps: RedeemDeps,
  signer: EthersWallet,
  call: Pick<UnsignedTx, 'from' | 'to' | 'data' | 'chainId'>,
  gasLimit?: bigint,
  value = 0n,
) {
  const nonce = Number(await hexBig(deps, 'eth_getTransactionCount', [signer.address, 'pending']));
  const gas =
    gasLimit ??
    gasWithMargin(await hexBig(deps, 'eth_estimateGas', [{ from: call.from, to: call.to, data: call.data }]));
  const [gasPrice, tip] = await Promise.all([
    hexBig(deps, 'eth_gasPrice', []),
    hexBig(deps, 'eth_maxPriorityFeePerGas', []),
  ]);
  const raw = await signer.signTransaction({
    type: 2,
    chainId: call.chainId,
    to: call.to,
    data: call.data,
    value,
    nonce,
    gasLimit: gas,
    // Twice the current price: room for the base fee to rise for a few blocks, as wallets do.
    maxFeePerGas: gasPrice * 2n,
    maxPriorityFeePerGas: tip,
  });
  return { raw, hash: keccak256(raw).toLowerCase(), nonce };
}

/**
 * Write-ahead: the signed bytes are recorded (TxBroadcast, and their hash on the redemption under
 * `field`, guarded on it being empty) before anything is sent. A job that loses the race, or runs
 * again after a crash, uses the recorded transaction instead of signing a second one.
 */
async function signOnce(
  deps: RedeemDeps,
  rec: RedemptionRecord,
  field: 'txHash' | 'approvalTxHash',
  signer: EthersWallet,
  call: UnsignedTx,
  gasLimit?: bigint,
): Promise<string> {
  const { raw, hash, nonce } = await signCall(deps, signer, call, gasLimit);
  await recordBroadcast(deps.models, {
    hash,
    userId: rec.userId,
    agentId: null,
    sender: signer.address,
    to: call.to,
    kind: call.kind,
    nonce,
    raw,
  });
  const set: Record<string, unknown> = { [field]: hash };
  if (field === 'txHash') Object.assign(set, { status: 'signed', error: null });
  const won = await deps.models.Redemption.findOneAndUpdate(
    { _id: rec._id, [field]: rec[field] ?? null },
    { $set: set },
    { returnDocument: 'after' },
  ).lean();
  afterWrite(won !== null);
  if (won) return hash;
  const now = await deps.models.Redemption.findById(rec._id).lean();
  return now![field]!;
}

/** Sends a recorded transaction (again: harmless), counting a first send as a write for the crash tests. */
async function send(deps: RedeemDeps, hash: string): Promise<BroadcastOutcome> {
  const before = await deps.models.TxBroadcast.findById(hash, { status: 1 }).lean();
  const outcome = await sendBroadcast(deps, hash);
  // A resend of what the node already has is a replayed step, not progress (faults.ts).
  afterWrite(before?.status === 'queued' || before?.status === 'failed');
  return outcome;
}

/**
 * Job `redeem-position`: redeems the resolved market `marketId` from the wallet of `scope` (the
 * human's managed wallet, or an agent's own wallet: keys the service holds). The adapter needs the CTF operator approval first, which the service sends when it is
 * missing. Exactly once: the redemption is signed once (write-ahead, above), re-sent rather than
 * re-signed after a crash, and the positions are settled by ledger entries that apply once. A
 * redemption that reverted or was dropped is signed anew on the next request.
 */
export async function redeemPosition(
  deps: RedeemDeps,
  scope: RedemptionScope,
  marketId: string,
): Promise<RedeemOutcome> {
  const market = await deps.models.Market.findById(marketId).lean();
  const ref = venueRefOn(market, 'polymarket');
  if (!market || !ref || market.status !== 'resolved')
    return {
      status: 'failed',
      tx_hash: null,
      payout: 0,
      error: 'market is not a resolved Polymarket market',
    };
  const wallet = await redeemingWallet(deps, scope);
  const signer = wallet?.ownership === 'managed' ? await wallet.signer() : null;
  if (!wallet || !signer)
    return { status: 'failed', tx_hash: null, payout: 0, error: 'no wallet the service signs for' };
  const id = redemptionId(wallet.address, marketId);
  const rec = await deps.models.Redemption.findOneAndUpdate(
    { _id: id },
    {
      $setOnInsert: {
        userId: scope.userId,
        agentId: scope.agentId,
        marketId,
        conditionId: ref.externalId,
        wallet: wallet.address,
        path: 'managed',
        status: 'prepared',
        requests: 0,
      },
    },
    { upsert: true, returnDocument: 'after' },
  ).lean();
  if (rec!.status === 'redeemed') return outcomeOf(rec!);
  const redemption = redemptionTransaction(wallet.address, {
    conditionId: ref.externalId,
    negRisk: ref.negRisk === true,
  });

  return withNonceLock(deps, wallet.address, async () => {
    let current: RedemptionRecord = (await deps.models.Redemption.findById(id).lean())!;
    if (current.status === 'redeemed') return outcomeOf(current);

    current = await dropFailed(deps, current, 'approvalTxHash');
    current = await dropFailed(deps, current, 'txHash');

    // 1. The adapter as CTF operator (polymarket.md §8.3: the adapters need it to burn the shares).
    let approvalPending = false;
    if (!(await deps.polygon.isApprovedForAll(POLYGON_CONTRACTS.ctf, wallet.address, redemption.to))) {
      const [approval] = approvalTransactions(wallet.address, [approvalKey('ctf', redemption.to)]);
      const hash =
        current.approvalTxHash ?? (await signOnce(deps, current, 'approvalTxHash', signer, approval!));
      const sent = await send(deps, hash);
      if (sent.status === 'failed') return fail(deps, id, `adapter approval failed: ${sent.error}`);
      approvalPending = sent.status !== 'mined';
      current = (await deps.models.Redemption.findById(id).lean())!;
    }

    // 2. The redemption: the recorded one, or a new one.
    let hash = current.txHash;
    if (!hash) {
      try {
        hash = await signOnce(
          deps,
          current,
          'txHash',
          signer,
          redemption,
          approvalPending ? REDEEM_GAS_FALLBACK : undefined,
        );
      } catch (err) {
        // The node's estimate reverts while the CTF has no payouts for the condition yet.
        if (err instanceof PolygonRpcError)
          throw new AppError(
            503,
            'redemption_not_ready',
            `redemption would revert: ${err.rpcMessage}`,
            'Retried shortly.',
            {
              retryable: true,
            },
          );
        throw err;
      }
    }
    const sent = await send(deps, hash);
    if (sent.status === 'mined') return outcomeOf((await finishRedemption(deps, hash, true))!);
    if (sent.status === 'failed') return outcomeOf((await finishRedemption(deps, hash, false, sent.error))!);
    const updated = await deps.models.Redemption.findOneAndUpdate(
      { _id: id, txHash: hash, status: 'signed' },
      { $set: { status: 'sent' } },
      { returnDocument: 'after' },
    ).lean();
    return outcomeOf(updated ?? (await deps.models.Redemption.findById(id).lean())!);
  });
}

/** A recorded transaction that failed for good (reverted, dropped, refused) is forgotten: the next one is signed anew. */
async function dropFailed(
  deps: RedeemDeps,
  rec: RedemptionRecord,
  field: 'txHash' | 'approvalTxHash',
): Promise<RedemptionRecord> {
  const hash = rec[field];
  if (!hash || (await deps.models.TxBroadcast.findById(hash, { status: 1 }).lean())?.status !== 'failed')
    return rec;
  await deps.models.Redemption.updateOne({ _id: rec._id, [field]: hash }, { $set: { [field]: null } });
  return (await deps.models.Redemption.findById(rec._id).lean())!;
}

async function fail(deps: RedeemDeps, id: string, error: string): Promise<RedeemOutcome> {
  const rec = await deps.models.Redemption.findOneAndUpdate(
    { _id: id, status: { $ne: 'redeemed' } },
    { $set: { status: 'failed', error } },
    { returnDocument: 'after' },
  ).lean();
  return outcomeOf(rec ?? (await deps.models.Redemption.findById(id).lean())!);
}
