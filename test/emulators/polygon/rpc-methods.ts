import { getAddress, isAddress, keccak256, toQuantity, toUtf8Bytes } from 'ethers';
import type { PolymarketState } from '../polymarket/state.js';
import { revertData } from './abi.js';
import {
  CHAIN_ID,
  feeCaps,
  RpcError,
  type BlockRecord,
  type FoundLog,
  type PolygonChain,
  type TxRecord,
} from './chain-state.js';
import { isContract, planCall } from './tx-effects.js';

// The Ethereum JSON-RPC methods the emulated Polygon node answers, in geth's wire shapes (hex
// quantities, lower-case hashes, null for unknown transactions). Each handler takes the positional
// params and returns the result or throws an RpcError. State is whatever the chain and the shared
// ledger hold *now*: block tags other than "pending" all read the latest state.

type Params = unknown[];
type Handler = (params: Params) => unknown;

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const EMPTY_BLOOM = `0x${'0'.repeat(512)}`;
/** Placeholder runtime code: clients only check that a contract address has some. */
const CONTRACT_CODE = '0x6080604052348015600f57600080fd5b50';

const invalid = (i: number, what: string) => new RpcError(-32602, `invalid argument ${i}: ${what}`);

function address(params: Params, i: number): string {
  const v = params[i];
  if (typeof v !== 'string' || !isAddress(v))
    throw invalid(i, 'hex string has length 40, want 40 for common.Address');
  return v.toLowerCase();
}

function quantity(v: unknown, i: number): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v)) throw invalid(i, 'hex string without 0x prefix');
  return BigInt(v);
}

function hexData(v: unknown, i: number): string {
  if (v === undefined || v === null) return '0x';
  if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v)) throw invalid(i, 'invalid hex data');
  return v.toLowerCase();
}

/** A block tag or number → a block number at or below the head; "pending" is the head. */
function blockNumberOf(chain: PolygonChain, tag: unknown, i: number): number {
  if (tag === undefined || tag === null) return chain.head;
  if (tag === 'latest' || tag === 'pending' || tag === 'safe' || tag === 'finalized') return chain.head;
  if (tag === 'earliest') return 0;
  if (typeof tag === 'object' && tag !== null && 'blockNumber' in tag)
    return blockNumberOf(chain, (tag as { blockNumber: unknown }).blockNumber, i);
  return Number(quantity(tag, i));
}

/** A transaction the way `eth_getTransactionByHash` shows it (pending: no block fields). */
function txWire(chain: PolygonChain, r: TxRecord): Record<string, unknown> {
  const { tx } = r;
  const sig = tx.signature!;
  const mined = r.status === 'mined' && r.blockNumber !== undefined;
  const out: Record<string, unknown> = {
    blockHash: mined ? chain.blockHash(r.blockNumber!) : null,
    blockNumber: mined ? toQuantity(r.blockNumber!) : null,
    transactionIndex: mined ? toQuantity(r.index!) : null,
    from: getAddress(r.from),
    gas: toQuantity(tx.gasLimit),
    // geth shows a typed transaction's effective price once mined, its fee cap while pending.
    gasPrice: toQuantity(mined ? r.receipt!.effectiveGasPrice : feeCaps(tx).cap),
    hash: r.hash,
    input: tx.data,
    nonce: toQuantity(tx.nonce),
    to: tx.to ? tx.to.toLowerCase() : null,
    value: toQuantity(tx.value),
    type: toQuantity(tx.type ?? 0),
    chainId: toQuantity(CHAIN_ID),
    v: toQuantity(tx.type === 0 ? CHAIN_ID * 2n + 35n + BigInt(sig.yParity) : BigInt(sig.yParity)),
    r: sig.r,
    s: sig.s,
  };
  if (tx.type !== 0) {
    out.accessList = tx.accessList ?? [];
    out.yParity = toQuantity(sig.yParity);
  }
  if (tx.type === 2) {
    out.maxFeePerGas = toQuantity(tx.maxFeePerGas ?? 0n);
    out.maxPriorityFeePerGas = toQuantity(tx.maxPriorityFeePerGas ?? 0n);
  }
  return out;
}

/** A log as receipts and `eth_getLogs` show it. */
function logWire(chain: PolygonChain, { log, tx, logIndex }: FoundLog): Record<string, unknown> {
  return {
    address: log.address,
    topics: log.topics,
    data: log.data,
    blockNumber: toQuantity(tx.blockNumber!),
    blockHash: chain.blockHash(tx.blockNumber!),
    transactionHash: tx.hash,
    transactionIndex: toQuantity(tx.index ?? 0),
    logIndex: toQuantity(logIndex),
    removed: false,
  };
}

function receiptWire(chain: PolygonChain, r: TxRecord): Record<string, unknown> | null {
  if (r.status !== 'mined' || !r.receipt || r.blockNumber === undefined) return null;
  const { receipt, tx } = r;
  return {
    blockHash: chain.blockHash(r.blockNumber),
    blockNumber: toQuantity(r.blockNumber),
    transactionHash: r.hash,
    transactionIndex: toQuantity(r.index ?? 0),
    from: r.from,
    to: tx.to ? tx.to.toLowerCase() : null,
    contractAddress: null,
    cumulativeGasUsed: toQuantity(receipt.cumulativeGasUsed),
    gasUsed: toQuantity(receipt.gasUsed),
    effectiveGasPrice: toQuantity(receipt.effectiveGasPrice),
    logs: receipt.logs.map((log, i) => logWire(chain, { log, tx: r, logIndex: receipt.firstLogIndex + i })),
    logsBloom: EMPTY_BLOOM,
    status: toQuantity(receipt.status),
    type: toQuantity(tx.type ?? 0),
  };
}

function blockWire(chain: PolygonChain, b: BlockRecord, full: boolean): Record<string, unknown> {
  const txs = b.txHashes.map((h) => chain.txs.get(h)!);
  return {
    number: toQuantity(b.number),
    hash: chain.blockHash(b.number),
    parentHash: chain.blockHash(b.number - 1),
    nonce: '0x0000000000000000',
    mixHash: `0x${'0'.repeat(64)}`,
    sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
    logsBloom: EMPTY_BLOOM,
    transactionsRoot: keccak256(toUtf8Bytes(`transactions of ${chain.blockHash(b.number)}`)),
    stateRoot: keccak256(toUtf8Bytes(`state of ${chain.blockHash(b.number)}`)),
    receiptsRoot: keccak256(toUtf8Bytes(`receipts of ${chain.blockHash(b.number)}`)),
    miner: ZERO_ADDRESS,
    difficulty: '0x1',
    totalDifficulty: toQuantity(b.number),
    extraData: '0x',
    size: toQuantity(600 + 200 * txs.length),
    gasLimit: toQuantity(30_000_000),
    gasUsed: toQuantity(b.gasUsed),
    timestamp: toQuantity(Math.floor(b.timestampMs / 1000)),
    baseFeePerGas: toQuantity(b.baseFee),
    transactions: full ? txs.map((t) => txWire(chain, t)) : b.txHashes,
    uncles: [],
  };
}

/** A topic filter position: null (any), one topic, or a list of alternatives (geth's OR). */
function topicSet(v: unknown, i: number): Set<string> | null {
  if (v === null || v === undefined) return null;
  const list = Array.isArray(v) ? v : [v];
  if (list.length === 0) return null;
  return new Set(list.map((t) => hexData(t, i)));
}

/** geth's cap on a filter's topic positions. */
const MAX_TOPICS = 4;

/** `eth_getLogs`: by `blockHash`, or over `fromBlock`..`toBlock` (default latest), geth's filter rules. */
function getLogs(chain: PolygonChain, params: Params): Record<string, unknown>[] {
  const f = params[0];
  if (typeof f !== 'object' || f === null) throw invalid(0, 'filter object expected');
  const c = f as Record<string, unknown>;
  let from: number;
  let to: number;
  if (c.blockHash !== undefined && c.blockHash !== null) {
    if (c.fromBlock !== undefined || c.toBlock !== undefined)
      throw new RpcError(
        -32602,
        'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other',
      );
    const want = hexData(c.blockHash, 0);
    const n = [...chain.blocks.keys()].find((k) => chain.blockHash(k) === want);
    if (n === undefined) throw new RpcError(-32000, 'unknown block');
    from = to = n;
  } else {
    from = blockNumberOf(chain, c.fromBlock ?? 'latest', 0);
    to = blockNumberOf(chain, c.toBlock ?? 'latest', 0);
    if (from > to && to <= chain.head) throw new RpcError(-32000, 'invalid block range params');
  }
  const addresses =
    c.address === undefined || c.address === null
      ? null
      : new Set((Array.isArray(c.address) ? c.address : [c.address]).map((a) => address([a], 0)));
  const topics = c.topics === undefined || c.topics === null ? [] : c.topics;
  if (!Array.isArray(topics)) throw invalid(0, 'topics must be an array');
  if (topics.length > MAX_TOPICS) throw new RpcError(-32000, 'exceed max topics');
  const wanted = topics.map((t) => topicSet(t, 0));
  return chain
    .logs(from, to)
    .filter(({ log }) => !addresses || addresses.has(log.address.toLowerCase()))
    .filter(({ log }) =>
      wanted.every((w, i) => !w || (log.topics[i] !== undefined && w.has(log.topics[i]!.toLowerCase()))),
    )
    .map((found) => logWire(chain, found));
}

/** The call object of eth_call / eth_estimateGas. */
function callOf(params: Params) {
  const o = params[0];
  if (typeof o !== 'object' || o === null) throw invalid(0, 'call object expected');
  const c = o as Record<string, unknown>;
  const from = c.from === undefined || c.from === null ? ZERO_ADDRESS : address([c.from], 0);
  const to = c.to === undefined || c.to === null ? null : address([c.to], 0);
  return {
    from,
    to,
    data: hexData(c.input ?? c.data, 0),
    value: c.value === undefined || c.value === null ? 0n : quantity(c.value, 0),
    gas: c.gas === undefined || c.gas === null ? undefined : quantity(c.gas, 0),
  };
}

/** geth's answer to a reverted call: code 3, "execution reverted[: reason]", the ABI-encoded reason as data. */
function reverted(reason: string | undefined): RpcError {
  return reason === undefined
    ? new RpcError(3, 'execution reverted', '0x')
    : new RpcError(3, `execution reverted: ${reason}`, revertData(reason));
}

function calldataGas(data: string): bigint {
  let gas = 21_000n;
  for (const b of Buffer.from(data.slice(2), 'hex')) gas += b === 0 ? 4n : 16n;
  return gas;
}

export function rpcMethods(state: PolymarketState, chain: PolygonChain): Record<string, Handler> {
  return {
    web3_clientVersion: () => 'bor/v2.2.0-polymarket-emulator',
    net_version: () => CHAIN_ID.toString(),
    net_listening: () => true,
    eth_chainId: () => toQuantity(CHAIN_ID),
    eth_syncing: () => false,
    eth_accounts: () => [],
    eth_blockNumber: () => toQuantity(chain.head),
    eth_gasPrice: () => toQuantity(chain.baseFee + chain.priorityFee),
    eth_maxPriorityFeePerGas: () => toQuantity(chain.priorityFee),

    eth_getBalance: (p) => {
      const a = address(p, 0);
      blockNumberOf(chain, p[1], 1);
      return toQuantity(chain.balance(a));
    },
    eth_getTransactionCount: (p) => {
      const a = address(p, 0);
      return toQuantity(p[1] === 'pending' ? chain.pendingNonce(a) : chain.nonce(a));
    },
    eth_getCode: (p) => (isContract(address(p, 0)) ? CONTRACT_CODE : '0x'),

    eth_getBlockByNumber: (p) => {
      const b = chain.block(blockNumberOf(chain, p[0], 0));
      return b ? blockWire(chain, b, p[1] === true) : null;
    },

    eth_getBlockByHash: (p) => {
      const want = hexData(p[0], 0);
      const n = [...chain.blocks.keys()].find((k) => chain.blockHash(k) === want);
      const b = n === undefined ? undefined : chain.block(n);
      return b ? blockWire(chain, b, p[1] === true) : null;
    },

    eth_getLogs: (p) => getLogs(chain, p),

    eth_feeHistory: (p) => {
      const count = Math.min(Number(quantity(p[0], 0)), 1024);
      const newest = Math.min(blockNumberOf(chain, p[1], 1), chain.head);
      const percentiles = Array.isArray(p[2]) ? p[2] : [];
      const n = Math.max(Math.min(count, newest + 1), 0);
      const numbers = Array.from({ length: n }, (_, i) => newest - n + 1 + i);
      const blocks = numbers.map((k) => chain.block(k)!);
      return {
        oldestBlock: toQuantity(newest - n + 1),
        baseFeePerGas: [...blocks.map((b) => toQuantity(b.baseFee)), toQuantity(chain.baseFee)],
        gasUsedRatio: blocks.map((b) => Number(b.gasUsed) / 30_000_000),
        ...(percentiles.length
          ? { reward: blocks.map(() => percentiles.map(() => toQuantity(chain.priorityFee))) }
          : {}),
      };
    },

    eth_call: (p) => {
      const c = callOf(p);
      blockNumberOf(chain, p[1], 1);
      const out = planCall(state, c);
      if (!out.ok) throw reverted(out.reason);
      return out.returnData;
    },

    eth_estimateGas: (p) => {
      const c = callOf(p);
      if (c.value > 0n && chain.balance(c.from) < c.value)
        throw new RpcError(-32000, 'insufficient funds for transfer');
      const out = planCall(state, c);
      if (!out.ok) throw reverted(out.reason);
      const intrinsic = calldataGas(c.data);
      return toQuantity(out.gas > intrinsic ? out.gas : intrinsic);
    },

    eth_sendRawTransaction: (p) => chain.submit(p[0] as string),

    eth_getTransactionByHash: (p) => {
      const r = chain.get(String(p[0]));
      return r ? txWire(chain, r) : null;
    },
    eth_getTransactionReceipt: (p) => {
      const r = chain.get(String(p[0]));
      return r ? receiptWire(chain, r) : null;
    },
  };
}
