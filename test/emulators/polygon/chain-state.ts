import { keccak256, toUtf8Bytes, Transaction } from 'ethers';
import type { PolymarketState } from '../polymarket/state.js';
import { isContract, planCall, type EventLog } from './tx-effects.js';

// The chain around the shared ledger: native POL balances, account nonces, a transaction pool and
// blocks. Token state (pUSD, CTF positions, allowances) is not kept here: mined transactions act on
// `state.ledger` through tx-effects.ts, so this object only adds what a node has and a venue does
// not. Admission follows geth/Bor's transaction pool, with its error texts, because the service's
// broadcast relay has to recognise them ("already known" and "nonce too low" mean "already sent").
//
// Blocks are driven by the emulator clock, never by timers, so tests stay deterministic:
//   interval (default) – a block every `blockTimeMs` of emulator time, produced lazily on the next
//                        request (advancing the admin clock mines at once);
//   instant           – every accepted transaction is mined in its own block straight away;
//   manual            – blocks only on `POST /__admin/polygon/mine`.

export const CHAIN_ID = 137n;
const GWEI = 1_000_000_000n;
/** A recent-looking Polygon height, so clients that sanity-check block numbers see a real chain. */
const GENESIS_HEIGHT = 79_000_000;
const BLOCK_GAS_LIMIT = 30_000_000n;
/** geth's default price bump for a replacement (Bor keeps it): +10 % on both fee caps. */
const PRICE_BUMP_PERCENT = 10n;

export type MiningMode = 'interval' | 'instant' | 'manual';
export const MINING_MODES: MiningMode[] = ['interval', 'instant', 'manual'];

/** A JSON-RPC error as a node answers it (-32000 for transaction pool refusals). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: string,
  ) {
    super(message);
  }
}

export interface TxReceipt {
  status: 0 | 1;
  gasUsed: bigint;
  cumulativeGasUsed: bigint;
  effectiveGasPrice: bigint;
  /** Why it reverted (undefined: no reason string, or it succeeded). */
  revertReason?: string;
  logs: EventLog[];
  /** Index of the first log in the block. */
  firstLogIndex: number;
}

export interface TxRecord {
  hash: string;
  raw: string;
  tx: Transaction;
  /** lower-case */
  from: string;
  nonce: number;
  receivedMs: number;
  /** `dropped`: mined in a block a reorg replaced, and left out of the replacement. */
  status: 'pending' | 'mined' | 'replaced' | 'dropped';
  blockNumber?: number;
  index?: number;
  receipt?: TxReceipt;
}

export interface BlockRecord {
  number: number;
  timestampMs: number;
  baseFee: bigint;
  txHashes: string[];
  gasUsed: bigint;
  logCount: number;
}

/** A log as `eth_getLogs` finds it: its transaction and its index in the block. */
export interface FoundLog {
  log: EventLog;
  tx: TxRecord;
  logIndex: number;
}

/** How many blocks back a reorg may reach (Polygon's reorgs are short; deeper is a test mistake). */
export const MAX_REORG_DEPTH = 64;

/** Fee cap and tip of any transaction type (legacy: both are the gas price). */
export function feeCaps(tx: Transaction): { cap: bigint; tip: bigint } {
  if (tx.type === 2) return { cap: tx.maxFeePerGas ?? 0n, tip: tx.maxPriorityFeePerGas ?? 0n };
  const price = tx.gasPrice ?? 0n;
  return { cap: price, tip: price };
}

/** Intrinsic gas of a call (EIP-2028 calldata prices); what geth demands before admission. */
export function intrinsicGas(tx: Transaction): bigint {
  let gas = tx.to === null ? 53_000n : 21_000n;
  const bytes = Buffer.from(tx.data.slice(2), 'hex');
  for (const b of bytes) gas += b === 0 ? 4n : 16n;
  return gas;
}

export class PolygonChain {
  readonly balances = new Map<string, bigint>();
  readonly txs = new Map<string, TxRecord>();
  readonly blocks = new Map<number, BlockRecord>();
  private readonly nonces = new Map<string, number>();
  mode: MiningMode = 'interval';
  blockTimeMs = 2_000;
  baseFee = 30n * GWEI;
  priorityFee = 30n * GWEI;
  head = GENESIS_HEIGHT;
  lastBlockMs = 0;
  private arrivals = 0;
  /** First replaced height of every reorg so far, oldest first: a block's hash counts those at or below it. */
  private forks: number[] = [];

  constructor(private readonly state: PolymarketState) {
    this.reset();
  }

  reset(): void {
    this.balances.clear();
    this.txs.clear();
    this.blocks.clear();
    this.nonces.clear();
    this.mode = 'interval';
    this.blockTimeMs = 2_000;
    this.baseFee = 30n * GWEI;
    this.priorityFee = 30n * GWEI;
    this.head = GENESIS_HEIGHT;
    this.lastBlockMs = this.state.now();
    this.arrivals = 0;
    this.forks = [];
  }

  /** The hash of block `n` on the current chain: a reorg that replaced `n` gives it a new one. */
  blockHash(n: number): string {
    const generation = this.forks.filter((f) => f <= n).length;
    return keccak256(toUtf8Bytes(`emulated polygon block ${n}${generation ? `:${generation}` : ''}`));
  }

  // ---- accounts ----

  balance(address: string): bigint {
    return this.balances.get(address.toLowerCase()) ?? 0n;
  }

  fund(address: string, wei: bigint): void {
    this.balances.set(address.toLowerCase(), this.balance(address) + wei);
  }

  /** Nonce of the latest block: the next transaction the chain will execute from `address`. */
  nonce(address: string): number {
    return this.nonces.get(address.toLowerCase()) ?? 0;
  }

  /** The latest nonce plus the pool's gap-free run of pending transactions (`eth_getTransactionCount` "pending"). */
  pendingNonce(address: string): number {
    let n = this.nonce(address);
    while (this.pendingAt(address.toLowerCase(), n)) n++;
    return n;
  }

  private pendingAt(from: string, nonce: number): TxRecord | undefined {
    for (const r of this.txs.values())
      if (r.status === 'pending' && r.from === from && r.nonce === nonce) return r;
    return undefined;
  }

  pending(): TxRecord[] {
    return [...this.txs.values()].filter((r) => r.status === 'pending');
  }

  // ---- blocks ----

  /** Produces the blocks the emulator clock says are due (interval mode). Called before every request. */
  sync(): void {
    if (this.mode !== 'interval') return;
    const now = this.state.now();
    // The admin clock can move back (or a reset zeroes its offset): restart the block rhythm there.
    if (now < this.lastBlockMs) this.lastBlockMs = now;
    const due = Math.floor((now - this.lastBlockMs) / this.blockTimeMs);
    if (due <= 0) return;
    // The first due block takes the pool; the rest of a clock jump is empty blocks, only counted.
    this.mineBlock(this.lastBlockMs + this.blockTimeMs);
    this.head += due - 1;
    this.lastBlockMs += due * this.blockTimeMs;
  }

  /** Mines `count` blocks now (the first one takes the pool). Returns the hashes mined. */
  mine(count = 1): string[] {
    const now = Math.max(this.state.now(), this.lastBlockMs);
    const mined = this.mineBlock(now);
    this.head += Math.max(count, 1) - 1;
    this.lastBlockMs = now;
    return mined;
  }

  block(n: number): BlockRecord | undefined {
    if (!Number.isInteger(n) || n < 0 || n > this.head) return undefined;
    return (
      this.blocks.get(n) ?? {
        number: n,
        // Empty blocks are not stored; their time is extrapolated back from the head.
        timestampMs: this.lastBlockMs - (this.head - n) * this.blockTimeMs,
        baseFee: this.baseFee,
        txHashes: [],
        gasUsed: 0n,
        logCount: 0,
      }
    );
  }

  /** Logs of the blocks `from`..`to` (within the chain), block by block, in log index order. */
  logs(from: number, to: number): FoundLog[] {
    const out: FoundLog[] = [];
    const numbers = [...this.blocks.keys()].filter((n) => n >= from && n <= Math.min(to, this.head));
    for (const n of numbers.sort((a, b) => a - b)) {
      for (const hash of this.blocks.get(n)!.txHashes) {
        const tx = this.txs.get(hash)!;
        tx.receipt!.logs.forEach((log, i) => out.push({ log, tx, logIndex: tx.receipt!.firstLogIndex + i }));
      }
    }
    return out;
  }

  /**
   * A reorg: the last `depth` blocks are replaced by blocks of the same heights and times holding
   * the same transactions but those in `drop`, so every replaced block (and every block after it)
   * has a new hash and the logs of the dropped transactions are gone. What a dropped transaction
   * did stays done and its sender's nonce is not given back: the caller drops only transactions
   * without effects (admin.ts). Returns the first replaced height.
   */
  reorg(depth: number, drop: Set<string>): number {
    const fork = this.head - depth + 1;
    for (const block of [...this.blocks.values()].filter((b) => b.number >= fork)) {
      block.txHashes = block.txHashes.filter((h) => !drop.has(h));
      block.gasUsed = 0n;
      block.logCount = 0;
      block.txHashes.forEach((h, index) => {
        const r = this.txs.get(h)!;
        r.index = index;
        r.receipt!.firstLogIndex = block.logCount;
        block.logCount += r.receipt!.logs.length;
        block.gasUsed += r.receipt!.gasUsed;
        r.receipt!.cumulativeGasUsed = block.gasUsed;
      });
    }
    for (const h of drop) {
      const r = this.txs.get(h)!;
      r.status = 'dropped';
      r.blockNumber = undefined;
      r.index = undefined;
      r.receipt = undefined;
    }
    this.forks.push(fork);
    return fork;
  }

  private mineBlock(atMs: number): string[] {
    const number = ++this.head;
    const block: BlockRecord = {
      number,
      timestampMs: atMs,
      baseFee: this.baseFee,
      txHashes: [],
      gasUsed: 0n,
      logCount: 0,
    };
    // Per sender in nonce order, senders in arrival order; a nonce gap or a fee cap under the base
    // fee keeps the rest of that sender's transactions waiting, as in a real pool.
    let progress = true;
    while (progress) {
      progress = false;
      for (const r of this.pending().sort((a, b) => a.receivedMs - b.receivedMs || a.nonce - b.nonce)) {
        if (r.status !== 'pending' || r.nonce !== this.nonce(r.from)) continue;
        const { cap, tip } = feeCaps(r.tx);
        if (cap < block.baseFee) continue;
        if (block.gasUsed + r.tx.gasLimit > BLOCK_GAS_LIMIT) continue;
        // Earlier transactions of the sender may have spent what admission counted on.
        const price = cap < block.baseFee + tip ? cap : block.baseFee + tip;
        if (this.balance(r.from) < r.tx.gasLimit * price + r.tx.value) continue;
        this.execute(r, block);
        progress = true;
      }
    }
    this.blocks.set(number, block);
    return block.txHashes;
  }

  private execute(r: TxRecord, block: BlockRecord): void {
    const { tx } = r;
    const { cap, tip } = feeCaps(tx);
    const price = cap < block.baseFee + tip ? cap : block.baseFee + tip;
    const to = tx.to?.toLowerCase() ?? null;
    const plan = planCall(this.state, { from: r.from, to, data: tx.data, value: tx.value });
    const needed = plan.gas > intrinsicGas(tx) ? plan.gas : intrinsicGas(tx);
    const base = { cumulativeGasUsed: 0n, effectiveGasPrice: price, logs: [], firstLogIndex: block.logCount };
    let receipt: TxReceipt;
    if (tx.gasLimit < needed) {
      receipt = { ...base, status: 0, gasUsed: tx.gasLimit, revertReason: 'out of gas' };
    } else if (!plan.ok) {
      receipt = { ...base, status: 0, gasUsed: needed, revertReason: plan.reason };
    } else {
      const logs = plan.apply();
      // Value moves only to accounts without code: every emulated contract is non-payable.
      if (to !== null && !isContract(to) && tx.value > 0n) {
        this.balances.set(r.from, this.balance(r.from) - tx.value);
        this.fund(to, tx.value);
      }
      receipt = { ...base, status: 1, gasUsed: needed, logs };
      block.logCount += logs.length;
    }
    // Gas is paid whatever happened (admission made sure the sender can afford the whole limit).
    const fee = receipt.gasUsed * price;
    const left = this.balance(r.from) - fee;
    this.balances.set(r.from, left < 0n ? 0n : left);
    this.nonces.set(r.from, r.nonce + 1);
    block.gasUsed += receipt.gasUsed;
    receipt.cumulativeGasUsed = block.gasUsed;
    r.status = 'mined';
    r.blockNumber = block.number;
    r.index = block.txHashes.length;
    r.receipt = receipt;
    block.txHashes.push(r.hash);
  }

  // ---- transaction pool ----

  /**
   * `eth_sendRawTransaction`: decode, check signature, chain id, nonce, gas and funds the way
   * geth's pool does, then keep the transaction pending (or mine it, in instant mode).
   */
  submit(raw: string): string {
    this.sync();
    if (typeof raw !== 'string' || !/^0x([0-9a-fA-F]{2})+$/.test(raw))
      throw new RpcError(-32602, 'invalid argument 0: hex string expected');
    let tx: Transaction;
    try {
      tx = Transaction.from(raw);
    } catch (err) {
      throw new RpcError(
        -32000,
        `rlp: ${(err as { shortMessage?: string }).shortMessage ?? 'invalid transaction'}`,
      );
    }
    if (tx.type !== 0 && tx.type !== 1 && tx.type !== 2)
      throw new RpcError(-32000, 'transaction type not supported');
    if (tx.type === 0 && tx.chainId === 0n && tx.signature !== null)
      throw new RpcError(-32000, 'only replay-protected (EIP-155) transactions allowed over RPC');
    if (tx.chainId !== CHAIN_ID)
      throw new RpcError(
        -32000,
        `invalid sender: invalid chain id for signer: have ${tx.chainId} want ${CHAIN_ID}`,
      );
    // ethers recovers the sender on every read of `from`: once is enough.
    const sender = tx.signature === null ? null : tx.from;
    if (sender === null) throw new RpcError(-32000, 'invalid sender: invalid transaction v, r, s values');
    return this.admit(tx, raw, sender.toLowerCase());
  }

  /**
   * A transaction signed by one of the emulator's own keys (operator-tx.ts), admitted without
   * recovering `from` from the signature: the signer is known, and recovery is the costly part
   * of a submission when every match of the crowd sends one.
   */
  submitSigned(tx: Transaction, from: string): string {
    this.sync();
    return this.admit(tx, tx.serialized, from.toLowerCase());
  }

  /** The pool's admission rules for a decoded, signed transaction of `from`. */
  private admit(tx: Transaction, raw: string, from: string): string {
    const hash = tx.hash!.toLowerCase();
    if (this.txs.get(hash)?.status === 'pending') throw new RpcError(-32000, 'already known');
    const next = this.nonce(from);
    if (tx.nonce < next)
      throw new RpcError(-32000, `nonce too low: next nonce ${next}, tx nonce ${tx.nonce}`);
    if (tx.gasLimit > BLOCK_GAS_LIMIT) throw new RpcError(-32000, 'exceeds block gas limit');
    const intrinsic = intrinsicGas(tx);
    if (tx.gasLimit < intrinsic)
      throw new RpcError(-32000, `intrinsic gas too low: gas ${tx.gasLimit}, minimum needed ${intrinsic}`);
    const { cap, tip } = feeCaps(tx);
    if (tip > cap) throw new RpcError(-32000, 'max priority fee per gas higher than max fee per gas');
    const balance = this.balance(from);
    const cost = tx.gasLimit * cap + tx.value;
    if (balance < cost)
      throw new RpcError(
        -32000,
        `insufficient funds for gas * price + value: balance ${balance}, tx cost ${cost}, overshot ${cost - balance}`,
      );
    const old = this.pendingAt(from, tx.nonce);
    if (old) {
      const prev = feeCaps(old.tx);
      const bumped = (v: bigint) => (v * (100n + PRICE_BUMP_PERCENT)) / 100n;
      if (cap < bumped(prev.cap) || tip < bumped(prev.tip))
        throw new RpcError(-32000, 'replacement transaction underpriced');
      old.status = 'replaced';
    }
    // Arrival order breaks ties between transactions received in the same emulator millisecond.
    const record: TxRecord = {
      hash,
      raw,
      tx,
      from,
      nonce: tx.nonce,
      receivedMs: this.state.now() + this.arrivals++ / 1e6,
      status: 'pending',
    };
    this.txs.set(hash, record);
    if (this.mode === 'instant') this.mine();
    return hash;
  }

  get(hash: string): TxRecord | undefined {
    const r = this.txs.get(String(hash).toLowerCase());
    return r && r.status !== 'replaced' && r.status !== 'dropped' ? r : undefined;
  }

  setMode(mode: MiningMode, blockTimeMs?: number): void {
    if (blockTimeMs !== undefined) this.blockTimeMs = blockTimeMs;
    if (mode === 'interval' && this.mode !== 'interval') this.lastBlockMs = this.state.now();
    this.mode = mode;
    if (mode === 'instant' && this.pending().length) this.mine();
  }
}
