import { createHash } from 'node:crypto';
import type { SolanaChain } from '../solana/chain.js';
import { buildOrderTransaction } from './order-transaction.js';
import type { PricedOrder } from './pricing.js';

// DFlow's asynchronous prediction-market orders (kalshi.md §2.6): an order exists once `/order`
// has issued its transaction; the RPC landing it opens it (input escrowed), and the emulated
// Kalshi liquidity provider then fills it (`open` → `pendingClose` → `closed`) on the clock or on
// an admin "fill now", or reverts it (`failed`). A transaction that never lands before its
// lastValidBlockHeight leaves the order `expired`.

export type OrderStatus = 'pending' | 'open' | 'pendingClose' | 'closed' | 'expired' | 'failed';
export const TERMINAL: OrderStatus[] = ['closed', 'expired', 'failed'];

export interface Fill {
  signature: string;
  inputMint: string;
  inAmount: string;
  outputMint: string;
  outAmount: string;
}
export interface Revert {
  signature: string;
  mint: string;
  amount: string;
}

/** A scripted fate for the next landed orders (admin `POST /__admin/orders/script`). */
export interface Script {
  outcome: 'fail' | 'partial' | 'hold';
  /** Share of the contracts filled, for `partial`. */
  fraction: number;
  remaining: number;
}

export interface DflowOrder extends PricedOrder {
  id: number;
  user: string;
  /** Who receives the output (destinationWallet, else the user). */
  destination: string;
  feePayer: string;
  messageHash: string;
  blockhash: string;
  lastValidBlockHeight: number;
  createdAt: number;
  initCost: bigint;
  status: OrderStatus;
  signature?: string;
  landedAt?: number;
  /** Held by a `hold` script: only fill-now / fail / expire move it. */
  held: boolean;
  fate?: Script;
  fills: Fill[];
  reverts: Revert[];
  filledIn: bigint;
  filledOut: bigint;
}

export interface DeskTiming {
  /** ms after landing when the fill starts closing; null = only admin fill-now fills. */
  fillAfterMs: number | null;
  pendingCloseMs: number;
}

export const messageHash = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export class DflowDesk {
  readonly orders: DflowOrder[] = [];
  private readonly byMessage = new Map<string, DflowOrder>();
  private readonly bySignature = new Map<string, DflowOrder>();
  scripts: Script[] = [];

  constructor(private readonly chain: SolanaChain) {}

  issue(
    priced: PricedOrder,
    who: { user: string; destination: string; sponsor?: string; initCost: bigint },
    now: number,
  ): { order: DflowOrder; transaction: string } {
    const { blockhash, lastValidBlockHeight } = this.chain.issueBlockhash();
    const id = this.orders.length + 1;
    const { base64, messageBytes } = buildOrderTransaction({
      orderId: id,
      user: who.user,
      sponsor: who.sponsor,
      recentBlockhash: blockhash,
    });
    const order: DflowOrder = {
      ...priced,
      id,
      user: who.user,
      destination: who.destination,
      feePayer: who.sponsor ?? who.user,
      messageHash: messageHash(messageBytes),
      blockhash,
      lastValidBlockHeight,
      createdAt: now,
      initCost: who.initCost,
      status: 'pending',
      held: false,
      fills: [],
      reverts: [],
      filledIn: 0n,
      filledOut: 0n,
    };
    this.orders.push(order);
    this.byMessage.set(order.messageHash, order);
    return { order, transaction: base64 };
  }

  byMessageBytes(bytes: Uint8Array): DflowOrder | undefined {
    return this.byMessage.get(messageHash(bytes));
  }

  bySig(signature: string): DflowOrder | undefined {
    return this.bySignature.get(signature);
  }

  /** The RPC saw the transaction but it did not land (skipPreflight or a dropped send): still pending. */
  received(order: DflowOrder, signature: string): void {
    if (order.signature) return;
    order.signature = signature;
    this.bySignature.set(signature, order);
  }

  /** The transaction landed: the input is escrowed (by the caller) and the order is open. */
  landed(order: DflowOrder, signature: string, now: number): void {
    order.signature = signature;
    this.bySignature.set(signature, order);
    order.status = 'open';
    order.landedAt = now;
    const script = this.scripts[0];
    if (script) {
      order.fate = { ...script };
      if (--script.remaining <= 0) this.scripts.shift();
      if (script.outcome === 'hold') order.held = true;
    }
  }

  /** Moves open orders along the clock and expires unlanded ones past their block height. */
  sync(
    now: number,
    timing: DeskTiming,
    settle: (o: DflowOrder) => void,
    expire: (o: DflowOrder) => void,
  ): void {
    for (const o of this.orders) {
      if (o.status === 'pending') {
        if (this.chain.height > o.lastValidBlockHeight) expire(o);
        continue;
      }
      if ((o.status !== 'open' && o.status !== 'pendingClose') || o.held || timing.fillAfterMs === null)
        continue;
      const closingAt = o.landedAt! + timing.fillAfterMs;
      if (now >= closingAt + timing.pendingCloseMs) settle(o);
      else if (now >= closingAt) o.status = 'pendingClose';
    }
  }

  reset(): void {
    this.orders.length = 0;
    this.byMessage.clear();
    this.bySignature.clear();
    this.scripts = [];
  }
}
