import {
  COMPUTE_BUDGET_PROGRAM,
  LAMPORTS_PER_SIGNATURE,
  MEMO_PROGRAM,
  PRIORITY_FEE_LAMPORTS,
  rentExempt,
  TOKEN_2022_ACCOUNT_SIZE,
} from '../constants.js';
import type { DflowOrder } from '../dflow/desk.js';
import type { KalshiState } from '../state.js';
import { preflightFailure, RpcError } from './rpc-error.js';
import { sanitized, signaturesVerify, type WireTransaction } from './wire-transaction.js';

// `sendTransaction` as an Agave node runs it (kalshi.md §3.5, §5.3): sanitize, verify every
// required ed25519 signature, check the blockhash is known and unexpired and the signature new,
// then "simulate" the effects against the ledger, and land. Each refusal carries the runtime's
// own wording. With skipPreflight the signature comes back at once and a bad transaction simply
// never lands (its DFlow order stays `pending`, then `expired`).

const ix = (reason: string) => `Error processing Instruction 2: ${reason}`;

/** The program logs of the three instructions of a DFlow order transaction, failing at the third. */
function orderLogs(failure: string): string[] {
  const budget = [
    `Program ${COMPUTE_BUDGET_PROGRAM} invoke [1]`,
    `Program ${COMPUTE_BUDGET_PROGRAM} success`,
  ];
  return [
    ...budget,
    ...budget,
    `Program ${MEMO_PROGRAM} invoke [1]`,
    'Program log: Instruction: OpenOrder',
    `Program ${MEMO_PROGRAM} consumed 6211 of 199700 compute units`,
    `Program ${MEMO_PROGRAM} failed: ${failure}`,
  ];
}

/** What landing this transaction would do, or the preflight error it fails with. */
function plan(state: KalshiState, tx: WireTransaction, order: DflowOrder | undefined): () => void {
  const { chain } = state;
  const payer = tx.message.staticAccountKeys[0]!.toBase58();
  const fee = LAMPORTS_PER_SIGNATURE * BigInt(tx.signatures.length) + (order ? PRIORITY_FEE_LAMPORTS : 0n);
  const lamports = chain.balance(payer);
  if (!chain.lamports.has(payer) || lamports === 0n)
    throw preflightFailure(
      'Attempt to debit an account but found no record of a prior credit.',
      'AccountNotFound',
    );
  if (lamports < fee) throw preflightFailure('Insufficient funds for fee', 'InsufficientFundsForFee');
  if (!order) return () => chain.addLamports(payer, -fee);

  const source = chain.tokenAccount(order.user, order.inputMint);
  if (!source)
    throw preflightFailure(
      ix('Invalid account owner'),
      { InstructionError: [2, 'InvalidAccountOwner'] },
      orderLogs('invalid account owner'),
    );
  if (source.amount < order.inAmount)
    throw preflightFailure(
      ix('custom program error: 0x1'),
      { InstructionError: [2, { Custom: 1 }] },
      orderLogs('custom program error: 0x1'),
    );
  // The output account (Token-2022 for outcome tokens) is created in this transaction, at the payer's cost.
  const createsOutput = !chain.tokenAccount(order.destination, order.outputMint);
  const rent = createsOutput ? rentExempt(TOKEN_2022_ACCOUNT_SIZE) : 0n;
  const market = state.markets.get(order.ticker);
  const init = market && !market.dflowInitialized ? order.initCost : 0n;
  if (lamports < fee + rent + init)
    throw preflightFailure('Transaction results in an account (0) with insufficient funds for rent', {
      InsufficientFundsForRent: { account_index: 0 },
    });
  return () => {
    chain.addLamports(payer, -(fee + rent + init));
    source.amount -= order.inAmount;
    if (createsOutput) chain.ensureTokenAccount(order.destination, order.outputMint);
    if (market && !market.dflowInitialized) market.dflowInitialized = true;
  };
}

function check(state: KalshiState, tx: WireTransaction): () => void {
  if (!signaturesVerify(tx)) {
    throw state.settings.signature_failure === 'verify'
      ? new RpcError(-32003, 'Transaction signature verification failure')
      : preflightFailure('Transaction did not pass signature verification', 'SignatureFailure');
  }
  if (!state.chain.blockhashValid(tx.message.recentBlockhash))
    throw preflightFailure('Blockhash not found', 'BlockhashNotFound');
  if (state.chain.landed.has(tx.id))
    throw preflightFailure('This transaction has already been processed', 'AlreadyProcessed');
  return plan(state, tx, state.desk.byMessageBytes(tx.messageBytes));
}

export function submitTransaction(
  state: KalshiState,
  tx: WireTransaction,
  opts: { skipPreflight: boolean; drop: boolean },
): string {
  if (!sanitized(tx))
    throw new RpcError(
      -32602,
      'invalid transaction: Transaction failed to sanitize accounts offsets correctly',
    );
  const order = state.desk.byMessageBytes(tx.messageBytes);
  let land: (() => void) | undefined;
  try {
    land = check(state, tx);
  } catch (err) {
    if (!opts.skipPreflight) throw err;
  }
  if (!land || opts.drop) {
    // Accepted for relay, never lands.
    if (!state.chain.landed.has(tx.id)) {
      state.chain.unlanded.add(tx.id);
      if (order) state.desk.received(order, tx.id);
    }
    return tx.id;
  }
  land();
  state.chain.unlanded.delete(tx.id);
  state.chain.landed.set(tx.id, { signature: tx.id, landedHeight: state.chain.height, err: null, fee: 0n });
  if (order && order.status === 'pending') state.desk.landed(order, tx.id, state.now());
  return tx.id;
}

/** `simulateTransaction`: the same checks without landing; signature checks only when asked. */
export function simulate(
  state: KalshiState,
  tx: WireTransaction,
  sigVerify: boolean,
): { err: unknown; logs: string[] } {
  if (sigVerify && !signaturesVerify(tx))
    throw new RpcError(-32602, 'invalid transaction: transaction signature is invalid');
  try {
    if (!state.chain.blockhashValid(tx.message.recentBlockhash))
      return { err: 'BlockhashNotFound', logs: [] };
    plan(state, tx, state.desk.byMessageBytes(tx.messageBytes));
    return { err: null, logs: [] };
  } catch (err) {
    if (err instanceof RpcError) {
      const data = err.data as { err: unknown; logs: string[] };
      return { err: data.err, logs: data.logs };
    }
    throw err;
  }
}
