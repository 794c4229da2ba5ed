import { parseEther, Transaction, type Wallet } from 'ethers';
import type { PolymarketState } from '../polymarket/state.js';
import { CHAIN_ID, intrinsicGas, type PolygonChain } from './chain-state.js';
import { planCall } from './tx-effects.js';

// A transaction of one of Polymarket's own signers (the relayer's, the CLOB operator's): sent the
// way their services send it, to the chain's pool and mined by its mining mode like any other.

/** The signer's POL is topped up to this when it runs low: Polymarket keeps its signers funded. */
const OPERATOR_FLOAT = parseEther('100');

/**
 * Sends `data` to `to` as a transaction of `signer` (nonce after its pending ones, the chain's fees,
 * the gas the call needs with a margin) and returns its hash. A call bound to revert is sent all
 * the same: it is mined reverted.
 */
export function sendAsOperator(
  state: PolymarketState,
  chain: PolygonChain,
  signer: Wallet,
  to: string,
  data: string,
): string {
  const from = signer.address.toLowerCase();
  const tx = Transaction.from({
    type: 2,
    chainId: CHAIN_ID,
    to,
    data,
    value: 0n,
    nonce: chain.pendingNonce(from),
    maxPriorityFeePerGas: chain.priorityFee,
    maxFeePerGas: 2n * chain.baseFee + chain.priorityFee,
  });
  const planned = planCall(state, { from, to, data, value: 0n });
  const needed = planned.gas > intrinsicGas(tx) ? planned.gas : intrinsicGas(tx);
  tx.gasLimit = (needed * 3n) / 2n;
  tx.signature = signer.signingKey.sign(tx.unsignedHash);
  if (chain.balance(from) < OPERATOR_FLOAT / 2n) chain.fund(from, OPERATOR_FLOAT - chain.balance(from));
  return chain.submitSigned(tx, from);
}
