import { Interface, toQuantity } from 'ethers';
import { z } from 'zod';
import type { FeedBlock, FillFeedSource } from '../../fill-feed-source.js';
import type { VenueFill } from '../../venue-fill.js';
import type { TokenMarkets } from '../token-markets.js';
import { POLYGON_CONTRACTS } from './polygon-contracts.js';
import type { PolygonRpc } from './polygon-rpc.js';

/**
 * Polymarket's fills as its exchanges settle them on Polygon: every `OrderFilled` of CTF Exchange
 * V2 and the Neg Risk exchanges V2 (A and B), read with `eth_getLogs` through this process's
 * Polygon client. One OrderFilled is one order's part of a match, so one leg: its `maker` is the
 * wallet whose order filled; when its `taker` is the exchange itself the order was the taker order
 * of the match, otherwise it rested on the book (a maker leg). `OrdersMatched` repeats the taker
 * order's fill and is not read. Amounts have 6 decimals; a BUY gave pUSD (`makerAmountFilled`) for
 * shares (`takerAmountFilled`), a SELL the reverse.
 */

/** ctf-exchange-v2 `src/exchange/interfaces/ITrading.sol` (the reference gives no event ABI). */
const EXCHANGE_EVENTS = new Interface([
  'event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee, bytes32 builder, bytes32 metadata)',
]);
const ORDER_FILLED = EXCHANGE_EVENTS.getEvent('OrderFilled')!;
/** Hashed once: ethers hashes an event's signature again on every read of `topicHash`. */
const ORDER_FILLED_TOPIC = ORDER_FILLED.topicHash;

const EXCHANGES = [
  POLYGON_CONTRACTS.ctfExchangeV2,
  POLYGON_CONTRACTS.negRiskExchangeV2,
  POLYGON_CONTRACTS.negRiskExchangeV2B,
];
const EXCHANGE_SET = new Set(EXCHANGES.map((a) => a.toLowerCase()));

/**
 * Blocks per `eth_getLogs`: Polygon nodes cap a filter's range (commonly 1,000–10,000 blocks) or
 * its answer's size, and a busy Polygon block holds hundreds of fills.
 */
const BLOCKS_PER_READ = 200;
/** Block headers fetched at once for the timestamps of a range's fills. */
const HEADERS_IN_PARALLEL = 8;
/** Headers kept by hash: the head just polled is usually the block of the fills read next. */
const HEADERS_KEPT = 64;
const BASE_UNITS = 1_000_000;

const Quantity = z
  .string()
  .regex(/^0x[0-9a-fA-F]+$/)
  .transform((q) => Number(BigInt(q)));
const Hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
const BlockSchema = z.object({
  number: Quantity,
  hash: Hash,
  parentHash: Hash,
  timestamp: Quantity,
});
const LogSchema = z.object({
  address: z.string(),
  topics: z.array(z.string()),
  data: z.string(),
  blockNumber: Quantity,
  blockHash: Hash,
  transactionHash: Hash,
  logIndex: Quantity,
  /** Newer nodes (geth ≥ 1.14) give the block's time with each log; older ones do not. */
  blockTimestamp: Quantity.optional(),
  removed: z.boolean().optional(),
});
type WireLog = z.output<typeof LogSchema>;

function feedBlock(raw: unknown): FeedBlock | null {
  if (raw === null || raw === undefined) return null;
  const b = BlockSchema.parse(raw);
  return { number: b.number, hash: b.hash, parentHash: b.parentHash, at: new Date(b.timestamp * 1000) };
}

/** One leg of a log, before its market is known. */
interface ParsedLeg {
  log: WireLog;
  wallet: string;
  leg: 'taker' | 'maker';
  action: 'buy' | 'sell';
  tokenId: string;
  price: number;
  shares: number;
}

/** Word `i` (32 bytes) of a log's data, as an unsigned integer. */
const dataWord = (data: string, i: number) => BigInt(`0x${data.slice(2 + 64 * i, 66 + 64 * i)}`);
/** The address an indexed address topic holds (its last 20 bytes), in lower case. */
const topicAddress = (topic: string) => `0x${topic.slice(26)}`.toLowerCase();

/**
 * An OrderFilled's fields read by position (topics: signature, orderHash, maker, taker; data words:
 * side, tokenId, makerAmountFilled, takerAmountFilled, fee, builder, metadata) rather than through
 * `Interface.parseLog`, which hashed the event's signature and built its decoders again for every
 * log: most of the feed's time on a busy block (~0.6 ms a log, 2 s blocks of ~400 legs).
 */
function parseLeg(log: WireLog): ParsedLeg | null {
  if (log.removed || log.topics[0] !== ORDER_FILLED_TOPIC) return null;
  if (log.topics.length !== 4 || log.data.length < 2 + 64 * 7) return null;
  const makerAmount = dataWord(log.data, 2);
  const takerAmount = dataWord(log.data, 3);
  const buy = dataWord(log.data, 0) === 0n;
  const [usd, shares] = buy ? [makerAmount, takerAmount] : [takerAmount, makerAmount];
  if (shares === 0n) return null;
  const taker = topicAddress(log.topics[3]!);
  return {
    log,
    wallet: topicAddress(log.topics[2]!),
    leg: taker === log.address.toLowerCase() || EXCHANGE_SET.has(taker) ? 'taker' : 'maker',
    action: buy ? 'buy' : 'sell',
    tokenId: dataWord(log.data, 1).toString(),
    price: Math.round((Number(usd) / Number(shares)) * BASE_UNITS) / BASE_UNITS,
    shares: Number(shares) / BASE_UNITS,
  };
}

export class PolymarketExchangeFills implements FillFeedSource {
  readonly maxBlocksPerRead = BLOCKS_PER_READ;
  /** Block time by block hash (a hash names one block for good, reorg or not). */
  private readonly timeByHash = new Map<string, Date>();

  constructor(
    private readonly polygon: PolygonRpc,
    private readonly tokenMarkets: TokenMarkets,
  ) {}

  async head(): Promise<FeedBlock> {
    const head = this.remember(await this.polygon.request('eth_getBlockByNumber', ['latest', false]));
    if (!head) throw new Error('polygon eth_getBlockByNumber(latest) answered null');
    return head;
  }

  async block(number: number): Promise<FeedBlock | null> {
    return this.remember(await this.polygon.request('eth_getBlockByNumber', [toQuantity(number), false]));
  }

  private remember(raw: unknown): FeedBlock | null {
    const block = feedBlock(raw);
    if (!block || this.timeByHash.has(block.hash)) return block;
    this.timeByHash.set(block.hash, block.at);
    if (this.timeByHash.size > HEADERS_KEPT) this.timeByHash.delete(this.timeByHash.keys().next().value!);
    return block;
  }

  async fills(from: number, to: number): Promise<VenueFill[]> {
    const raw = await this.polygon.request('eth_getLogs', [
      {
        fromBlock: toQuantity(from),
        toBlock: toQuantity(to),
        address: EXCHANGES,
        topics: [ORDER_FILLED_TOPIC],
      },
    ]);
    const legs = z
      .array(LogSchema)
      .parse(raw)
      .map(parseLeg)
      .filter((l): l is ParsedLeg => l !== null)
      .sort((a, b) => a.log.blockNumber - b.log.blockNumber || a.log.logIndex - b.log.logIndex);
    if (legs.length === 0) return [];
    const [times, markets] = await Promise.all([
      this.blockTimes(legs.map((l) => l.log)),
      this.tokenMarkets.resolve(legs.map((l) => l.tokenId)),
    ]);
    return legs.map(({ log, ...leg }) => {
      const known = markets.get(leg.tokenId);
      return {
        _id: `${log.transactionHash.toLowerCase()}:${log.logIndex}:${leg.leg}`,
        venue: 'polymarket',
        txHash: log.transactionHash.toLowerCase(),
        logIndex: log.logIndex,
        blockNumber: log.blockNumber,
        blockHash: log.blockHash,
        at: times.get(log.blockNumber)!,
        leg: leg.leg,
        wallet: leg.wallet,
        action: leg.action,
        // A token Gamma does not know has no market to say which outcome it is: read as YES.
        outcome: known?.outcome ?? 'yes',
        tokenId: leg.tokenId,
        price: leg.price,
        shares: leg.shares,
        market: known ? { ...known.market, outcomeLabel: known.outcomeLabel } : null,
        withdrawnAt: null,
      };
    });
  }

  /** The time of each block holding a log: a header already read, the log's own field, else its header. */
  private async blockTimes(logs: WireLog[]): Promise<Map<number, Date>> {
    const times = new Map<number, Date>();
    for (const log of logs) {
      const known = this.timeByHash.get(log.blockHash);
      if (known) times.set(log.blockNumber, known);
      else if (log.blockTimestamp !== undefined)
        times.set(log.blockNumber, new Date(log.blockTimestamp * 1000));
    }
    const missing = [...new Set(logs.map((l) => l.blockNumber))].filter((n) => !times.has(n));
    for (let i = 0; i < missing.length; i += HEADERS_IN_PARALLEL) {
      const headers = await Promise.all(missing.slice(i, i + HEADERS_IN_PARALLEL).map((n) => this.block(n)));
      for (const [j, header] of headers.entries()) {
        const n = missing[i + j]!;
        // The block vanished between the two reads (a reorg): the feed sees it on its next poll.
        times.set(n, header?.at ?? new Date(0));
      }
    }
    return times;
  }
}
