import type { InfraDeps } from '../../../../infra/infra-deps.js';
import type { Models } from '../../../models.js';
import type { Refusal } from '../../../refusal.js';
import { AppError } from '../../../../infra/errors.js';
import type {
  WalletApprovalModels,
  WalletApprovalRecord,
  WalletApprovalStatus,
} from './wallet-approval.model.js';
import { Wallet, getAddress } from 'ethers';
import { readAllowances } from './allowances.js';
import { approvalTransactions, type UnsignedTx } from './approval-transactions.js';
import { recordBroadcast } from './broadcast-record.js';
import { followReceipt, sendBroadcast } from './broadcast-worker.js';
import { transactionReceipt } from './broadcast-rpc.js';
import type { BroadcastStatus } from '../../../wallets/broadcast.model.js';
import { POLYGON_CHAIN_ID } from './polygon-contracts.js';
import type { PolygonRpc } from './polygon-rpc.js';
import { gasWithMargin, signCall, withNonceLock } from './redeem-position.js';

/**
 * The trading approvals of a managed wallet, set by the service before the wallet's first order.
 *
 * A managed wallet is an EOA whose key the service holds (it signs orders as signature type 0),
 * so on Polymarket it does what an EOA user does: it sends the same twelve approvals the official
 * client's `set_approvals()` signs for an external wallet (approval-transactions.ts, polymarket.md
 * §8.3) as its own transactions. The venue's gas-less relayer only acts for smart wallets (proxy,
 * Safe, deposit wallet), so the gas is paid in POL by the wallet; when it has too little, the
 * service's gas sponsor (POLYGON_GAS_SPONSOR_KEY) sends it what its approvals cost first, as the
 * relayer's operator pays for the wallets it serves.
 *
 * Once: the state lives in a WalletApproval record, and an `approved` wallet is not looked at
 * again. Every signed transaction is recorded before it is sent, so a retry re-sends it rather than
 * signing another; one signer at a time per wallet (the nonce lock of redeem-position.ts), and a
 * second first trade waits for the first one's approvals instead of sending its own.
 */

export type ManagedApprovalsDeps = Pick<InfraDeps, 'env' | 'log' | 'redis' | 'queues' | 'clock'> & {
  models: Models & WalletApprovalModels;
  polygon: PolygonRpc;
};

/** How long a trade waits for another trade that is setting the same wallet's approvals. */
const LOCK_WAIT_MS = 20_000;
const LOCK_POLL_MS = 100;
/**
 * How long an attempt waits for a sent transaction to be mined (Polygon makes a block every ~2 s):
 * the trade that sets the approvals goes through in the same request. Two waits (the gas, then the
 * approvals) stay well inside TRADE_WAIT_MS; past it the trade is refused as pending.
 */
const MINE_WAIT_MS = 8_000;
const MINE_POLL_MS = 250;
/** A plain POL transfer. */
const TRANSFER_GAS = 21_000n;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Attempt {
  status: WalletApprovalStatus;
  error: string | null;
}

/** Stops an attempt with a reason that is recorded on the wallet and told to the trade. */
class ApprovalStop extends Error {}

/**
 * The retryable refusals a trade gets while its wallet's approvals are not all on chain. Filed as
 * the account's (`agent`), not the market's: a venue refusal would close the market side to new
 * buys for FAILED_TRADE_COOLDOWN_SECONDS, and the retry these ask for must go through.
 */
function refusalOf(address: string, attempt: Attempt): Refusal {
  if (attempt.status === 'pending')
    return {
      error: `The trading approvals of managed wallet ${address} were sent and are not mined yet.`,
      errorCode: 'wallet_approvals_pending',
      retryable: true,
      hint: 'Send the trade again in a few seconds: the approvals are set once and the next trade goes through when they are mined.',
      category: 'agent',
    };
  return {
    error: `The trading approvals of managed wallet ${address} could not be set: ${attempt.error ?? 'unknown'}.`,
    errorCode: 'wallet_approvals_failed',
    retryable: true,
    hint: /POL/.test(attempt.error ?? '')
      ? `Send a little POL (0.1 is plenty) to ${address} for the gas of its one-time approvals, then send the trade again.`
      : 'Send the trade again: the service resumes the approvals where they stopped.',
    category: 'agent',
  };
}

/**
 * Before a managed wallet's order: null when its approvals are on chain (set now if needed), else
 * the retryable refusal of the trade. Never throws for a chain or relay failure: that is recorded
 * as the wallet's `failed` state and refused, and the next trade resumes.
 */
export async function managedWalletApprovals(
  deps: ManagedApprovalsDeps,
  userId: string,
  signer: Wallet,
): Promise<Refusal | null> {
  const id = signer.address.toLowerCase();
  if ((await deps.models.WalletApproval.findById(id, { status: 1 }).lean())?.status === 'approved')
    return null;
  const attempt = await waitForLock(deps, signer.address, async (): Promise<Attempt> => {
    const rec = await deps.models.WalletApproval.findOneAndUpdate(
      { _id: id },
      {
        $setOnInsert: { userId, address: signer.address, status: 'pending' },
        $inc: { attempts: 1 },
      },
      { upsert: true, returnDocument: 'after' },
    ).lean();
    // Another trade set them while this one waited.
    if (rec!.status === 'approved') return { status: 'approved', error: null };
    const result = await setApprovals(deps, rec!, signer).catch((err: unknown): Attempt => ({
      status: 'failed',
      error: err instanceof Error ? err.message : String(err),
    }));
    await deps.models.WalletApproval.updateOne(
      { _id: id },
      {
        $set: {
          status: result.status,
          error: result.error,
          ...(result.status === 'approved' ? { approvedAt: deps.clock() } : {}),
        },
      },
    );
    if (result.status !== 'approved')
      deps.log.warn(
        { user_id: userId, wallet: signer.address, ...result },
        'managed wallet approvals not set',
      );
    return result;
  }).catch((err: unknown) => {
    // Another trade has held the wallet for LOCK_WAIT_MS: still busy with its approvals.
    if (isBusy(err)) return { status: 'pending' as const, error: null };
    throw err;
  });
  return attempt.status === 'approved' ? null : refusalOf(signer.address, attempt);
}

/** Runs `fn` under the address's nonce lock, waiting while another signer holds it (then `wallet_busy`). */
async function waitForLock<T>(deps: ManagedApprovalsDeps, address: string, fn: () => Promise<T>): Promise<T> {
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      return await withNonceLock(deps, address, fn);
    } catch (err) {
      if (!isBusy(err) || Date.now() > until) throw err;
      await sleep(LOCK_POLL_MS);
    }
  }
}

const isBusy = (err: unknown) => err instanceof AppError && err.code === 'wallet_busy';

/**
 * One attempt: what was sent before is followed (re-sent if it is not mined, forgotten if it
 * failed), what the chain still lacks is signed and sent, after the gas top-up it needs.
 */
async function setApprovals(
  deps: ManagedApprovalsDeps,
  rec: WalletApprovalRecord,
  signer: Wallet,
): Promise<Attempt> {
  const address = signer.address;
  // 1. The top-up and the approvals recorded earlier.
  if (
    rec.gasTopUpTx &&
    !(await settled(deps, rec._id, 'gasTopUpTx', rec.gasTopUpTx, Date.now() + MINE_WAIT_MS))
  )
    return { status: 'pending', error: null };
  const inFlight = new Set<string>();
  const until = Date.now() + MINE_WAIT_MS;
  for (const tx of rec.txs)
    if (!(await settled(deps, rec._id, 'txs', tx.hash, until))) inFlight.add(tx.key.toLowerCase());

  // 2. What the chain lacks and nothing in flight sets.
  const chain = await readAllowances(deps, address, { noCache: true, includeTxParams: false });
  const toSign = approvalTransactions(
    address,
    chain.missing.filter((k) => !inFlight.has(k)),
  );
  if (toSign.length === 0) return { status: chain.all_set ? 'approved' : 'pending', error: null };

  // 3. Gas for them, then each signed, recorded (write-ahead) and sent in nonce order.
  const gasLimits = await Promise.all(toSign.map((call) => estimate(deps, call)));
  const maxFee = (await hexBig(deps, 'eth_gasPrice', [])) * 2n;
  const cost = gasLimits.reduce((sum, g) => sum + g * maxFee, 0n);
  if (!(await topUpGas(deps, rec, address, cost))) return { status: 'pending', error: null };
  let pending = inFlight.size > 0;
  const unmined: string[] = [];
  for (const [i, call] of toSign.entries()) {
    const { raw, hash, nonce } = await signCall(deps, signer, call, gasLimits[i]);
    await recordBroadcast(deps.models, {
      hash,
      userId: rec.userId,
      agentId: null,
      sender: address,
      to: call.to,
      kind: call.kind,
      nonce,
      raw,
    });
    await deps.models.WalletApproval.updateOne(
      { _id: rec._id },
      { $push: { txs: { key: keyOf(call), hash } } },
    );
    const sent = await sendBroadcast(deps, hash);
    if (sent.status === 'failed') throw new ApprovalStop(`approval ${keyOf(call)} failed: ${sent.error}`);
    if (sent.status !== 'mined') unmined.push(hash);
  }
  // In nonce order: once the last is mined, the others are.
  const minedBy = Date.now() + MINE_WAIT_MS;
  for (const hash of unmined.reverse()) {
    const status = await minedWithin(deps, hash, minedBy);
    if (status === 'failed') {
      const rec = await deps.models.TxBroadcast.findById(hash, { error: 1 }).lean();
      throw new ApprovalStop(`an approval failed: ${rec?.error ?? 'reverted'}`);
    }
    if (status !== 'mined') pending = true;
  }
  if (pending) return { status: 'pending', error: null };
  const after = await readAllowances(deps, address, { noCache: true, includeTxParams: false });
  return after.all_set
    ? { status: 'approved', error: null }
    : { status: 'failed', error: `still missing on chain: ${after.missing.join(', ')}` };
}

/** The allowance key an approval transaction sets (the spender is its first argument). */
function keyOf(call: UnsignedTx): string {
  const spender = getAddress(`0x${call.data.slice(34, 74)}`).toLowerCase();
  return `${call.kind === 'approve-ctf-operator' ? 'ctf' : 'pusd'}_${spender}`;
}

const hexBig = async (deps: ManagedApprovalsDeps, method: string, params: unknown[]) =>
  BigInt((await deps.polygon.request(method, params)) as string);

const estimate = async (deps: ManagedApprovalsDeps, call: UnsignedTx) =>
  gasWithMargin(await hexBig(deps, 'eth_estimateGas', [{ from: call.from, to: call.to, data: call.data }]));

/**
 * Whether a recorded transaction is done with: mined, or failed (then it is forgotten and what it
 * was for is signed anew). One still in flight is sent again (harmless) and followed.
 */
async function settled(
  deps: ManagedApprovalsDeps,
  id: string,
  field: 'gasTopUpTx' | 'txs',
  hash: string,
  until: number,
): Promise<boolean> {
  const rec = await deps.models.TxBroadcast.findById(hash, { status: 1 }).lean();
  let status =
    rec?.status === 'mined' || rec?.status === 'failed'
      ? rec.status
      : (await sendBroadcast(deps, hash)).status;
  if (status === 'sent' || status === 'queued') status = await minedWithin(deps, hash, until);
  if (status === 'failed')
    await deps.models.WalletApproval.updateOne(
      { _id: id },
      field === 'txs' ? { $pull: { txs: { hash } } } : { $set: { gasTopUpTx: null } },
    );
  return status === 'mined' || status === 'failed';
}

/**
 * Makes sure the wallet holds `cost` wei of POL: the sponsor sends the difference when it has less.
 * True when the gas is there; false while the top-up is in flight. No sponsor and no POL: stops.
 */
async function topUpGas(
  deps: ManagedApprovalsDeps,
  rec: WalletApprovalRecord,
  address: string,
  cost: bigint,
): Promise<boolean> {
  const balance = await hexBig(deps, 'eth_getBalance', [address, 'latest']);
  if (balance >= cost) return true;
  const key = deps.env.POLYGON_GAS_SPONSOR_KEY;
  if (!key)
    throw new ApprovalStop(
      `the wallet has ${formatPol(balance)} POL and its approvals need ${formatPol(cost)} POL of gas (no gas sponsor is configured)`,
    );
  const sponsor = new Wallet(key.startsWith('0x') ? key : `0x${key}`);
  const hash = await waitForLock(deps, sponsor.address, async () => {
    const transfer = { from: sponsor.address, to: address, data: '0x', chainId: Number(POLYGON_CHAIN_ID) };
    const {
      raw,
      hash: txHash,
      nonce,
    } = await signCall(deps, sponsor, transfer, TRANSFER_GAS, cost - balance);
    await recordBroadcast(deps.models, {
      hash: txHash,
      userId: rec.userId,
      agentId: null,
      sender: sponsor.address,
      to: address,
      kind: 'gas-top-up',
      nonce,
      raw,
    });
    await deps.models.WalletApproval.updateOne({ _id: rec._id }, { $set: { gasTopUpTx: txHash } });
    return txHash;
  });
  const sent = await sendBroadcast(deps, hash);
  if (sent.status === 'failed')
    throw new ApprovalStop(`the gas sponsor's POL transfer failed: ${sent.error}`);
  const status = sent.status === 'mined' ? 'mined' : await minedWithin(deps, hash);
  if (status === 'failed') throw new ApprovalStop("the gas sponsor's POL transfer reverted");
  return status === 'mined';
}

/**
 * Waits until `until` (MINE_WAIT_MS from now) for a sent transaction's receipt and records it (the receipt follower
 * would, a poll later): its status then, `sent` if it is still in the pool.
 */
async function minedWithin(
  deps: ManagedApprovalsDeps,
  hash: string,
  until = Date.now() + MINE_WAIT_MS,
): Promise<BroadcastStatus> {
  for (;;) {
    const rec = await deps.models.TxBroadcast.findById(hash, { status: 1 }).lean();
    if (!rec || rec.status === 'mined' || rec.status === 'failed') return rec?.status ?? 'failed';
    if (await transactionReceipt(deps, hash)) return (await followReceipt(deps, hash, 0)).status;
    if (Date.now() > until) return rec.status;
    await sleep(MINE_POLL_MS);
  }
}

const formatPol = (wei: bigint) => (Number(wei / 10n ** 12n) / 1e6).toString();
