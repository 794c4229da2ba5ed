import {
  applyResolution,
  defaultTick,
  FIRST_EVENT_ID,
  FIRST_MARKET_ID,
  materializeEvent,
  STATIC_EVENTS,
  TAGS,
  type EventSpec,
  type Sequence,
} from './catalogue.js';
import {
  buildFastMarket,
  currentWindowStart,
  FAST_ASSETS,
  FAST_WINDOWS,
  FAST_WINDOWS_AHEAD,
  fastMarketSlug,
  fastWinner,
} from './fast-markets.js';
import { CostBasis } from './cost-basis.js';
import { Exchange } from './exchange.js';
import { slugify } from './ids.js';
import type { TradeRecord } from './clob-records.js';
import { PublicTape } from './public-tape.js';
import {
  matchOfTrade,
  printClobTrade,
  printOffBookFill,
  printPriceMove,
  type OffBookFill,
  type Settle,
} from './tape-prints.js';
import type { TapeFill } from './public-tape.js';
import { ChainMatches } from '../polygon/exchange-settlement.js';
import {
  onGrid,
  type EventRecord,
  type FaultRule,
  type Holding,
  type MarketRecord,
  type RequestLogEntry,
  type Resolution,
} from './model.js';
import { toUnits, WalletLedger } from './wallet-ledger.js';
import { DepositWallets } from './deposit-wallets.js';

// All mutable emulator state, independent of HTTP: the routes only read and call these methods,
// so later additions (CLOB auth, orders, balances, a chain stand-in) can extend the state without
// touching the market-data routes. `reset()` returns to the initial catalogue.

export interface StateOptions {
  /** Wall clock in ms; the admin clock offset is added on top. */
  now?: () => number;
  /** Seed of the emulated crowd's trades on price moves (public-tape prints). Default `polymarket`. */
  printSeed?: string;
  /** Fills each market keeps on the public tape (oldest dropped). Default TAPE_CAP_PER_MARKET. */
  tapeCapPerMarket?: number;
  /** Delay between a fast market's end and its automatic resolution. Default 30 s. */
  fastResolveDelayMs?: number;
  /** How long closed fast markets stay queryable by slug / condition id. Default 2 h. */
  fastRetentionMs?: number;
}

export interface CreateEventInput {
  title: string;
  /** ≤2 labels: one binary market with these outcomes (default Yes/No); ≥3: a neg-risk event. */
  outcomes?: string[];
  slug?: string;
  negRisk?: boolean;
  /** Prices of outcome 0 (binary) or of each candidate's Yes (neg-risk). */
  prices?: number[];
  tick?: number;
  endInDays?: number;
  /** Keys of the catalogue's TAGS (default politics): `['sports', 'soccer']` makes a match. */
  tags?: (keyof typeof TAGS)[];
}

export class PolymarketState {
  readonly markets = new Map<string, MarketRecord>();
  readonly events = new Map<string, EventRecord>();
  /** Chain state: pUSD and CTF balances, allowances, approvals (shared with any chain stand-in). */
  readonly ledger = new WalletLedger();
  /** Deployed deposit wallets (owner, batch nonce): the relayer deploys them, the exchange checks type-3 orders against them. */
  readonly depositWallets = new DepositWallets();
  /** Data API entry prices; position sizes come from the ledger. */
  readonly basis = new CostBasis();
  /** The CLOB's trading side: API keys, orders, trades, settings. */
  readonly exchange: Exchange = new Exchange(this);
  /** The Data API's public trades: the crowd's prints on price moves and the CLOB's matches. */
  readonly tape: PublicTape;
  /** Matches put on the emulated chain, by id: what their settlement transactions emit. */
  readonly chainMatches = new ChainMatches();
  /** Set when a chain runs over this state: every match goes on it (its hash is the trade's). */
  settleOnChain: Settle | undefined;
  /** Fills an admin asked for, counted: their ids derive from it. */
  private adminFills = 0;
  faults: FaultRule[] = [];
  requests: RequestLogEntry[] = [];
  clockOffsetMs = 0;
  readonly fastResolveDelayMs: number;
  readonly fastRetentionMs: number;
  readonly printSeed: string;

  private readonly wallClock: () => number;
  private readonly marketBySlugIx = new Map<string, MarketRecord>();
  private readonly marketByConditionIx = new Map<string, MarketRecord>();
  private readonly marketByTokenIx = new Map<string, { market: MarketRecord; index: number }>();
  private readonly eventBySlugIx = new Map<string, EventRecord>();
  private seq: Sequence = { nextMarketId: FIRST_MARKET_ID, nextEventId: FIRST_EVENT_ID };
  /** The instant the catalogue was built; fixture dates are relative to its UTC day. */
  anchorMs = 0;

  constructor(opts: StateOptions = {}) {
    this.wallClock = opts.now ?? Date.now;
    this.fastResolveDelayMs = opts.fastResolveDelayMs ?? 30_000;
    this.fastRetentionMs = opts.fastRetentionMs ?? 2 * 3_600_000;
    this.printSeed = opts.printSeed ?? 'polymarket';
    this.tape = new PublicTape(opts.tapeCapPerMarket);
    this.reset();
  }

  /** The emulator clock (ms): injected clock plus the admin offset. Use it everywhere. */
  now(): number {
    return this.wallClock() + this.clockOffsetMs;
  }

  /**
   * The injected clock without the admin offset. Auth timestamps may match either: the offset
   * models time passing on the venue, and clients that sign with their own clock must still get in.
   */
  clientClockMs(): number {
    return this.wallClock();
  }

  reset(): void {
    this.markets.clear();
    this.events.clear();
    this.marketBySlugIx.clear();
    this.marketByConditionIx.clear();
    this.marketByTokenIx.clear();
    this.eventBySlugIx.clear();
    this.ledger.reset();
    this.depositWallets.reset();
    this.basis.reset();
    this.exchange.reset();
    this.tape.reset();
    this.chainMatches.reset();
    this.adminFills = 0;
    this.faults = [];
    this.requests = [];
    this.clockOffsetMs = 0;
    this.seq = { nextMarketId: FIRST_MARKET_ID, nextEventId: FIRST_EVENT_ID };
    this.anchorMs = this.now();
    for (const spec of STATIC_EVENTS) {
      const { event, markets } = materializeEvent(spec, this.anchorMs, this.seq);
      this.add(event, markets);
    }
    this.sync();
  }

  private add(event: EventRecord, markets: MarketRecord[]): void {
    this.events.set(event.id, event);
    this.eventBySlugIx.set(event.slug, event);
    for (const m of markets) {
      this.markets.set(m.id, m);
      this.marketBySlugIx.set(m.slug, m);
      if (m.conditionId) this.marketByConditionIx.set(m.conditionId.toLowerCase(), m);
      m.tokenIds.forEach((t, index) => this.marketByTokenIx.set(t, { market: m, index }));
    }
  }

  private remove(event: EventRecord): void {
    this.events.delete(event.id);
    this.eventBySlugIx.delete(event.slug);
    for (const id of event.marketIds) {
      const m = this.markets.get(id);
      if (!m) continue;
      this.markets.delete(id);
      this.marketBySlugIx.delete(m.slug);
      this.marketByConditionIx.delete(m.conditionId.toLowerCase());
      this.tape.forget(m.conditionId);
      for (const t of m.tokenIds) this.marketByTokenIx.delete(t);
    }
  }

  /**
   * Brings clock-driven state up to date: lists the current and next fast-market windows, closes
   * and later auto-resolves finished ones, and forgets those past the retention period. Called
   * before every request, so the clock (including admin offsets) is the only input.
   */
  sync(): void {
    const now = this.now();
    for (const asset of FAST_ASSETS) {
      for (const window of FAST_WINDOWS) {
        const start = currentWindowStart(now, window.seconds);
        for (let k = 0; k <= FAST_WINDOWS_AHEAD; k++) {
          const startSec = start + k * window.seconds;
          if (this.eventBySlugIx.has(fastMarketSlug(asset.key, window.key, startSec))) continue;
          const { event, market } = buildFastMarket(asset, window, startSec);
          this.add(event, [market]);
        }
      }
    }
    for (const m of [...this.markets.values()]) {
      if (!m.fast) continue;
      if (now >= m.endMs && !m.closed) this.close(m, m.endMs);
      if (now >= m.endMs + this.fastResolveDelayMs && !m.resolution) {
        applyResolution(m, fastWinner(m.slug), m.endMs + this.fastResolveDelayMs);
      }
      if (now > m.endMs + this.fastRetentionMs) {
        const event = this.events.get(m.eventId);
        if (event) this.remove(event);
      }
    }
    this.exchange.sync(now);
  }

  notePublicTrade(trade: TradeRecord): void {
    const hit = this.marketByToken(trade.tokenId);
    if (!hit) return;
    if (this.settleOnChain)
      trade.transactionHash = this.settleOnChain(matchOfTrade(trade, hit.market.negRisk));
    printClobTrade(this.tape, trade, hit.index);
  }

  // ---- lookups ----

  marketBySlug(slug: string): MarketRecord | undefined {
    return this.marketBySlugIx.get(slug);
  }
  marketByConditionId(conditionId: string): MarketRecord | undefined {
    return this.marketByConditionIx.get(conditionId.toLowerCase());
  }
  marketByToken(token: string): { market: MarketRecord; index: number } | undefined {
    return this.marketByTokenIx.get(token);
  }
  eventBySlug(slug: string): EventRecord | undefined {
    return this.eventBySlugIx.get(slug);
  }
  eventOf(m: MarketRecord): EventRecord {
    const e = this.events.get(m.eventId);
    if (!e) throw new Error(`market ${m.id} has no event`);
    return e;
  }
  marketsOf(e: EventRecord): MarketRecord[] {
    return e.marketIds.map((id) => this.markets.get(id)).filter((m): m is MarketRecord => m !== undefined);
  }

  // ---- mutations (admin) ----

  /**
   * Moves outcome 0's price: book, midpoint, last trade, Gamma snapshot and history all follow, and
   * the crowd's trades that made the move print on the public tape.
   */
  setPrice(m: MarketRecord, yes: number): void {
    const now = this.now();
    const from = m.price;
    const p = onGrid(Math.min(Math.max(yes, m.tick), 1 - m.tick), m.tick);
    m.lastTrade = { price: p, side: p >= m.price ? 'BUY' : 'SELL' };
    m.price = p;
    m.moves.push({ t: now, p });
    m.bookUpdatedMs = now;
    m.bookVersion++;
    m.volume = Math.round((m.volume + 250) * 100) / 100;
    m.volume24hr = Math.round((m.volume24hr + 250) * 100) / 100;
    printPriceMove(this.tape, m, from, Math.floor(now / 1000), this.printSeed, this.settleOnChain);
    // The new book may cross resting orders: they fill against it.
    this.exchange.sweep(m);
  }

  /** Admin: a trade between two wallets now, printed and put on the chain like the crowd's. */
  printFill(m: MarketRecord, f: Omit<OffBookFill, 'idText'>): TapeFill {
    const idText = `admin:${m.conditionId}:${++this.adminFills}`;
    return printOffBookFill(
      this.tape,
      m,
      { ...f, idText },
      Math.floor(this.now() / 1000),
      this.settleOnChain,
    );
  }

  resolve(m: MarketRecord, outcome: Resolution): void {
    applyResolution(m, outcome, this.now());
    this.exchange.cancelMarket(m);
  }

  /** Stops trading without resolving (UMA proposal pending). */
  close(m: MarketRecord, atMs = this.now()): void {
    m.closed = true;
    m.acceptingOrders = false;
    m.closedMs ??= atMs;
    m.bookUpdatedMs = atMs;
    m.bookVersion++;
    this.exchange.cancelMarket(m);
  }

  createEvent(input: CreateEventInput): { event: EventRecord; markets: MarketRecord[] } {
    const labels = input.outcomes ?? ['Yes', 'No'];
    const negRisk = input.negRisk ?? labels.length > 2;
    const base = input.slug ?? (slugify(input.title) || `event-${this.seq.nextEventId}`);
    let slug = base;
    for (let n = 2; this.eventBySlugIx.has(slug) || this.marketBySlugIx.has(slug); n++) slug = `${base}-${n}`;
    const prices = input.prices ?? [];
    const spec: EventSpec = {
      slug,
      title: input.title,
      tags: input.tags?.length ? input.tags.map((t) => TAGS[t]) : [TAGS.politics],
      endInDays: input.endInDays ?? 30,
      volume: 10_000,
      negRisk,
      markets: negRisk
        ? labels.map((name, i) => ({
            slug: `${slug}-${slugify(name) || i}`,
            question: `Will ${name} win? (${input.title})`,
            price: prices[i] ?? 1 / labels.length,
            groupItemTitle: name,
            tick: input.tick ?? defaultTick(prices[i] ?? 1 / labels.length),
          }))
        : [
            {
              slug,
              question: input.title,
              price: prices[0] ?? 0.5,
              outcomes: [labels[0] ?? 'Yes', labels[1] ?? 'No'],
              tick: input.tick ?? 0.01,
            },
          ],
    };
    // Dates relative to the current clock, not the catalogue anchor: the event is new.
    const { event, markets } = materializeEvent(spec, this.now(), this.seq);
    const now = this.now();
    event.createdMs = now;
    event.startMs = now;
    for (const m of markets) {
      m.createdMs = now;
      m.startMs = now;
      m.historyAnchorMs = now;
      m.moves = [{ t: now, p: m.price }];
      m.bookUpdatedMs = now;
    }
    this.add(event, markets);
    return { event, markets };
  }

  /** Sets (replaces) a holding: the ledger balance of `token` and its Data API entry price. */
  seedPosition(user: string, token: string, size: number, avgPrice: number): void {
    this.ledger.setTokenBalance(user, token, toUnits(size));
    this.basis.set(user, token, avgPrice, size);
  }

  /** What the Data API shows for `user`: ledger balances of catalogue tokens with entry prices. */
  holdings(user: string): Map<string, Holding> {
    const out = new Map<string, Holding>();
    for (const [token, units] of this.ledger.tokenBalances(user)) {
      if (!this.marketByTokenIx.has(token)) continue;
      const b = this.basis.get(user, token);
      out.set(token, {
        size: Number(units) / 1e6,
        avgPrice: b?.avgPrice ?? 0,
        totalBought: b?.totalBought,
        realizedPnl: b?.realizedPnl,
      });
    }
    return out;
  }
}
