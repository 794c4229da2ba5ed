import {
  ComputeBudgetProgram,
  PublicKey,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import { COMPUTE_UNIT_LIMIT, COMPUTE_UNIT_PRICE_MICROLAMPORTS, MEMO_PROGRAM } from '../constants.js';

// The unsigned transaction `/order` hands out (kalshi.md §5.2): a real v0 VersionedTransaction
// built with web3.js itself, so whatever web3.js (or solders) does with DFlow's transactions works
// here too. Instructions: compute-unit limit, compute-unit price, and a Memo standing in for
// DFlow's open-order instruction (index 2, the one RPC errors name), whose data names the order.
// The fee payer is key 0 and signs; with a sponsor, the sponsor pays and the user co-signs.

export interface OrderTransactionInput {
  orderId: number;
  user: string;
  sponsor?: string;
  recentBlockhash: string;
}

export const orderMemo = (orderId: number) => `dflow-emulator:open-order:${orderId}`;

export function buildOrderTransaction(input: OrderTransactionInput): {
  base64: string;
  messageBytes: Uint8Array;
} {
  const user = new PublicKey(input.user);
  const payer = input.sponsor ? new PublicKey(input.sponsor) : user;
  const openOrder = new TransactionInstruction({
    programId: new PublicKey(MEMO_PROGRAM),
    // The Memo program requires every account it is given to have signed: the user, when a sponsor pays.
    keys: input.sponsor ? [{ pubkey: user, isSigner: true, isWritable: false }] : [],
    data: Buffer.from(orderMemo(input.orderId), 'utf8'),
  });
  const message = new TransactionMessage({
    payerKey: payer,
    recentBlockhash: input.recentBlockhash,
    instructions: [
      ComputeBudgetProgram.setComputeUnitLimit({ units: COMPUTE_UNIT_LIMIT }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: COMPUTE_UNIT_PRICE_MICROLAMPORTS }),
      openOrder,
    ],
  }).compileToV0Message();
  // A new VersionedTransaction fills every required signature slot with 64 zero bytes.
  const tx = new VersionedTransaction(message);
  return { base64: Buffer.from(tx.serialize()).toString('base64'), messageBytes: message.serialize() };
}
