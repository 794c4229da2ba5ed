import {
  materializeEvent,
  materializeMarket,
  SERIES,
  STATIC_EVENTS,
  type EventSpec,
  type MarketSpec,
} from './catalogue.js';
import { DflowDesk, TERMINAL, type DflowOrder } from './dflow/desk.js';
import { mintsOf, type OutcomeMint } from './dflow/mints.js';
import { SolanaChain } from './solana/chain.js';
import {
  pipsToAtomic,
  type EventRecord,
  type Pips,
  type FaultRule,
  type MarketRecord,
  type RequestLogEntry,
  type SeriesRecord,
} from './model.js';
import { isMaintenanceWindow } from './maintenance.js';
import { KalshiTape, printDflowFill, printPriceMove } from './public-trades.js';

// All mutable emulator state, independent of HTTP: the Kalshi catalogue, the DFlow side (KYC set,
// orders), and the Solana ledger, over one injectable clock. The routes only read and call these.
// `reset()` returns to the fixed catalogue with empty wallets.

export interface KalshiStateOptions {
  /** Wall clock in ms; the admin clock offset is added on top. */
  now?: () => number;
  /** Seed of the emulated crowd's trades on price moves (public trades tape). Default `kalshi`. */
  printSeed?: string;
  /** Trades each market keeps on the public tape (oldest dropped). Default TAPE_CAP_PER_MARKET. */
  tapeCapPerMarket?: number;
}

export interface Settings {
  /** ms after landing at which an open order starts closing; null = only `fill-now` fills. */
  fill_after_ms: number | null;
  /** ms spent in `pendingClose` before `closed`. */
  pending_close_ms: number;
  /** One block per this many ms of emulator clock; null = blocks only move by admin call. */
  block_ms: number | null;
  /** `off`, `on`, or `schedule` = Kalshi's Thursday 03:00–05:00 America/New_York window. */
  maintenance: 'off' | 'on' | 'schedule';
  /** Gate sells on KYC too (an older DFlow announcement said all trading would need Proof). */
  kyc_on_sells: boolean;
  /** `preflight`: -32002 "Transaction simulation failed: Transaction did not pass signature
   *  verification"; `verify`: -32003 "Transaction signature verification failure". */
  signature_failure: 'preflight' | 'verify';
}

export const DEFAULT_SETTINGS: Settings = {
  fill_after_ms: 1_500,
  pending_close_ms: 500,
  block_ms: 400,
  maintenance: 'off',
  kyc_on_sells: false,
  signature_failure: 'preflight',
};

export class KalshiState {
  readonly markets = new Map<string, MarketRecord>();
  readonly events = new Map<string, EventRecord>();
  readonly series = new Map<string, SeriesRecord>();
  readonly mints = new Map<string, OutcomeMint | { ticker: string; ledger: true }>();
  readonly chain = new SolanaChain();
  readonly desk = new DflowDesk(this.chain);
  readonly kyc = new Set<string>();
  /** Kalshi's public trades: the crowd's on price moves, and the fills of DFlow orders. */
  readonly tape: KalshiTape;
  readonly printSeed: string;
  settings: Settings = { ...DEFAULT_SETTINGS };
  faults: FaultRule[] = [];
  /** How many requests each fault mode has failed since the last reset (e.g. the 429 counter). */
  faultsServed: Record<string, number> = {};
  requests: RequestLogEntry[] = [];
  clockOffsetMs = 0;
  private readonly wallClock: () => number;
  /** Emulator time at the last reset: the clock-driven block count starts there. */
  private epoch = 0;

  constructor(opts: KalshiStateOptions = {}) {
    this.wallClock = opts.now ?? Date.now;
    this.tape = new KalshiTape(opts.tapeCapPerMarket);
    this.printSeed = opts.printSeed ?? 'kalshi';
    this.reset();
  }

  now(): number {
    return this.wallClock() + this.clockOffsetMs;
  }

  reset(): void {
    this.markets.clear();
    this.events.clear();
    this.series.clear();
    this.mints.clear();
    this.chain.reset();
    this.desk.reset();
    this.kyc.clear();
    this.tape.reset();
    this.settings = { ...DEFAULT_SETTINGS };
    this.faults = [];
    this.faultsServed = {};
    this.requests = [];
    this.clockOffsetMs = 0;
    this.epoch = this.now();
    for (const s of SERIES) this.series.set(s.ticker, { ...s });
    for (const spec of STATIC_EVENTS) this.addEvent(spec);
  }

  addEvent(spec: EventSpec): { event: EventRecord; markets: MarketRecord[] } {
    const { event, markets } = materializeEvent(spec, this.now());
    this.events.set(event.eventTicker, event);
    if (!this.series.has(event.seriesTicker))
      this.series.set(event.seriesTicker, {
        ticker: event.seriesTicker,
        title: event.title,
        category: event.category,
        frequency: 'custom',
      });
    for (const m of markets) this.addMarket(m);
    return { event, markets };
  }

  addMarketSpec(spec: MarketSpec, event: EventRecord): MarketRecord {
    const m = materializeMarket(spec, event, this.now());
    this.addMarket(m);
    return m;
  }

  private addMarket(m: MarketRecord): void {
    this.markets.set(m.ticker, m);
    for (const [mint, what] of mintsOf(m.ticker)) this.mints.set(mint, what);
  }

  marketsOf(eventTicker: string): MarketRecord[] {
    return [...this.markets.values()].filter((m) => m.eventTicker === eventTicker);
  }

  /**
   * After an admin price move of `m` from `fromYes`: the crowd's trades that made it print. Only an
   * open market trades: a price set on any other is a fixture edit, not a move.
   */
  printPriceMove(m: MarketRecord, fromYes: Pips): void {
    if (m.status !== 'active') return;
    printPriceMove(this.tape, m, fromYes, this.now(), this.printSeed);
  }

  /** Kalshi's clearinghouse maintenance (DFlow answers `route_not_found` meanwhile). */
  inMaintenance(): boolean {
    const mode = this.settings.maintenance;
    return mode === 'on' || (mode === 'schedule' && isMaintenanceWindow(this.now()));
  }

  /** Brings clock-driven state up to date: block height, then order progression. */
  sync(): void {
    const now = this.now();
    const blockMs = this.settings.block_ms;
    this.chain.syncHeight(blockMs ? Math.floor(Math.max(0, now - this.epoch) / blockMs) : 0);
    this.desk.sync(
      now,
      { fillAfterMs: this.settings.fill_after_ms, pendingCloseMs: this.settings.pending_close_ms },
      (o) => this.settle(o),
      (o) => this.expire(o),
    );
  }

  advanceBlocks(n: number): void {
    this.chain.manualBlocks += n;
    this.sync();
  }

  /**
   * The liquidity provider fills an open order (whole, or the scripted share), credits the
   * output, and refunds what was not used as a revert. A market that stopped trading meanwhile
   * reverts the whole order.
   */
  settle(o: DflowOrder, opts: { fraction?: number } = {}): void {
    if (TERMINAL.includes(o.status) || o.status === 'pending') return;
    const m = this.markets.get(o.ticker);
    if (o.fate?.outcome === 'fail' || (o.action !== 'redeem' && m?.status !== 'active')) return this.fail(o);
    const fraction = opts.fraction ?? (o.fate?.outcome === 'partial' ? o.fate.fraction : 1);
    const sig = o.signature!;
    let spent: bigint;
    let received: bigint;
    if (o.action === 'buy') {
      const contracts = BigInt(Math.floor(Number(o.outAmount / 1_000_000n) * fraction));
      received = contracts * 1_000_000n;
      spent = contracts * pipsToAtomic(o.price);
    } else {
      spent = (o.inAmount * BigInt(Math.round(fraction * 1_000_000))) / 1_000_000n;
      received = (spent * pipsToAtomic(o.price)) / 1_000_000n;
    }
    if (received > 0n) {
      this.chain.ensureTokenAccount(o.destination, o.outputMint).amount += received;
      o.fills.push({
        signature: sig,
        inputMint: o.inputMint,
        inAmount: String(spent),
        outputMint: o.outputMint,
        outAmount: String(received),
      });
      if (m && o.action !== 'redeem') {
        const contracts = Number(o.action === 'buy' ? received : spent) / 1_000_000;
        printDflowFill(this.tape, o, contracts, this.now());
        m.volume += Number(received / 1_000_000n);
        m.volume24h += Number(received / 1_000_000n);
        m.updatedAt = this.now();
      }
    }
    const unused = o.inAmount - spent;
    if (unused > 0n) {
      this.chain.ensureTokenAccount(o.user, o.inputMint).amount += unused;
      o.reverts.push({ signature: sig, mint: o.inputMint, amount: String(unused) });
    }
    o.filledIn = spent;
    o.filledOut = received;
    o.status = 'closed';
  }

  /** The order reverts: the whole escrowed input goes back to the user. */
  fail(o: DflowOrder): void {
    if (TERMINAL.includes(o.status)) return;
    if (o.status === 'pending') return this.expire(o);
    this.chain.ensureTokenAccount(o.user, o.inputMint).amount += o.inAmount;
    o.reverts.push({ signature: o.signature!, mint: o.inputMint, amount: String(o.inAmount) });
    o.status = 'failed';
  }

  expire(o: DflowOrder): void {
    if (o.status !== 'pending') return;
    o.status = 'expired';
  }
}
