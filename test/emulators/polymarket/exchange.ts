import { bookOf, takeLiquidity } from './book.js';
import { ApiKeyStore, type ApiKeyRecord } from './clob-auth.js';
import {
  DEFAULT_SETTINGS,
  type ClobOrder,
  type ClobSettings,
  type LedgerLeg,
  type MakerFill,
  type TradeRecord,
  type TradeStatus,
} from './clob-records.js';
import { HOUSE_ADDRESS, HOUSE_OWNER } from './contracts.js';
import type { CostBasis } from './cost-basis.js';
import { takerFee } from './fees.js';
import { sha256Hex, uuidFrom } from './ids.js';
import { costOf, plan, type Liquidity, type Plan } from './matching.js';
import { clean, type MarketRecord } from './model.js';
import { ERR, OrderRejection, type Side, type VerifiedOrder } from './order-verify.js';
import { rollBack, settleFill, applyLeg } from './settlement.js';
import { advanceTrades, isFinal } from './trade-lifecycle.js';
import { fromUnits, toUnits, UNIT, type WalletLedger } from './wallet-ledger.js';

// The emulated CLOB's trading engine: accepts verified orders, checks them against the wallet
// ledger, matches them (matching.ts) against the synthetic book and resting orders, settles fills
// (settlement.ts), rests GTC/GTD remainders, and keeps orders and trades for the /data endpoints.
// The clock is the emulator's: delayed orders, GTD expiry and trade settlement all move in
// `sync(now)`, which the server runs before every request.

export interface ExchangeHost {
  now(): number;
  readonly ledger: WalletLedger;
  readonly basis: CostBasis;
  marketByToken(token: string): { market: MarketRecord; index: number } | undefined;
  /** Every matched trade, once: the Data API's public tape shows it. */
  notePublicTrade(trade: TradeRecord): void;
}

export interface PlaceResult {
  order: ClobOrder;
  trade: TradeRecord | undefined;
  status: 'live' | 'matched' | 'delayed';
}

export interface CancelResult {
  canceled: string[];
  not_canceled: Record<string, string>;
}

const OPEN = (o: ClobOrder) => o.status === 'LIVE' || o.status === 'DELAYED';
const opposite = (s: Side): Side => (s === 'BUY' ? 'SELL' : 'BUY');
const min = (a: bigint, b: bigint) => (a < b ? a : b);
const priceMicroOf = (o: ClobOrder) => (o.limitNum * UNIT) / o.limitDen;
const remainingShares = (o: ClobOrder) => o.shares - o.sizeMatched;

export class Exchange {
  readonly keys = new ApiKeyStore();
  readonly orders = new Map<string, ClobOrder>();
  readonly trades = new Map<string, TradeRecord>();
  settings: ClobSettings = { ...DEFAULT_SETTINGS };
  /** EOA → its deposit wallet, learned from accepted signature-type-3 orders (balance lookups). */
  readonly depositWallets = new Map<string, string>();
  private seq = 0;

  constructor(private readonly host: ExchangeHost) {}

  reset(): void {
    this.keys.reset();
    this.orders.clear();
    this.trades.clear();
    this.depositWallets.clear();
    this.settings = { ...DEFAULT_SETTINGS };
    this.seq = 0;
  }

  // ---- funds ----

  /** pUSD promised to the open BUY orders of `maker`. */
  reservedPusd(maker: string, except?: string): bigint {
    let sum = 0n;
    for (const o of this.openOrdersOfMaker(maker)) {
      if (o.side !== 'BUY' || o.id === except) continue;
      sum += o.amountBound
        ? o.struct.makerAmount - o.notionalMatched
        : (remainingShares(o) * o.limitNum + o.limitDen - 1n) / o.limitDen;
    }
    return sum;
  }

  /** Shares of `tokenId` promised to the open SELL orders of `maker`. */
  reservedShares(maker: string, tokenId: string, except?: string): bigint {
    let sum = 0n;
    for (const o of this.openOrdersOfMaker(maker)) {
      if (o.side === 'SELL' && o.tokenId === tokenId && o.id !== except) sum += remainingShares(o);
    }
    return sum;
  }

  private openOrdersOfMaker(maker: string): ClobOrder[] {
    const m = maker.toLowerCase();
    return [...this.orders.values()].filter((o) => OPEN(o) && o.maker.toLowerCase() === m);
  }

  /** Refuses an order whose maker cannot put up `need` on top of its other open orders. */
  private checkFunds(o: Pick<ClobOrder, 'id' | 'side' | 'maker' | 'tokenId' | 'exchange'>, need: bigint) {
    const { ledger } = this.host;
    if (o.side === 'BUY') {
      const reserved = this.reservedPusd(o.maker, o.id);
      const balance = ledger.pusdBalance(o.maker);
      const allowance = ledger.allowance(o.maker, o.exchange);
      if (balance - reserved < need || allowance - reserved < need) {
        throw new OrderRejection(
          400,
          `${ERR.balance}: balance: ${balance}, allowance: ${allowance}, open orders: ${reserved}, order amount: ${need}`,
        );
      }
    } else {
      const reserved = this.reservedShares(o.maker, o.tokenId, o.id);
      const balance = ledger.tokenBalance(o.maker, o.tokenId);
      const approved = ledger.isApprovedForAll(o.maker, o.exchange);
      if (balance - reserved < need || !approved) {
        throw new OrderRejection(
          400,
          `${ERR.balance}: balance: ${balance}, approved: ${approved}, open orders: ${reserved}, order amount: ${need}`,
        );
      }
    }
  }

  /** Shares a resting order's maker can still deliver or pay for right now. */
  private makerCapacity(o: ClobOrder): bigint {
    const { ledger } = this.host;
    const left = remainingShares(o);
    if (o.side === 'SELL') {
      if (!ledger.isApprovedForAll(o.maker, o.exchange)) return 0n;
      return min(left, ledger.tokenBalance(o.maker, o.tokenId));
    }
    const price = priceMicroOf(o);
    const pusd = min(ledger.pusdBalance(o.maker), ledger.allowance(o.maker, o.exchange));
    return min(left, (pusd * UNIT) / price);
  }

  // ---- placement ----

  place(v: VerifiedOrder, key: ApiKeyRecord): PlaceResult {
    if (this.settings.trading === 'disabled') throw new OrderRejection(503, ERR.disabled);
    if (this.settings.trading === 'cancel-only') throw new OrderRejection(503, ERR.cancelOnly);
    if (this.orders.has(v.id)) throw new OrderRejection(400, ERR.duplicated);
    const { market, ...rest } = v;
    const order: ClobOrder = {
      ...rest,
      conditionId: market.conditionId,
      outcome: market.outcomes[v.outcomeIndex] as string,
      ownerKey: key.apiKey,
      ownerAddress: key.address,
      createdMs: this.host.now(),
      status: 'LIVE',
      sizeMatched: 0n,
      notionalMatched: 0n,
      associateTrades: [],
      delayedUntilMs: undefined,
      seq: ++this.seq,
    };
    this.checkFunds(order, v.side === 'BUY' ? v.struct.makerAmount : v.shares);
    if (v.signatureType === 3) this.depositWallets.set(key.address, v.maker.toLowerCase());
    if (this.settings.delayNext > 0) {
      this.settings.delayNext--;
      order.status = 'DELAYED';
      order.delayedUntilMs = order.createdMs + this.settings.delayMs;
      this.orders.set(order.id, order);
      return { order, trade: undefined, status: 'delayed' };
    }
    const trade = this.match(order, market, v.outcomeIndex);
    this.orders.set(order.id, order);
    return { order, trade, status: trade ? 'matched' : 'live' };
  }

  /** Liquidity a taker on `tokenId`/`side` can hit: the house levels and others' resting orders. */
  private liquidityFor(m: MarketRecord, index: number, side: Side, except: string): Liquidity[] {
    const book = bookOf(m, index);
    const levels = side === 'BUY' ? book.asks : book.bids;
    const house: Liquidity[] = levels.map((l) => ({
      priceMicro: BigInt(Math.round(l.price * 1e6)),
      shares: toUnits(l.size),
      order: undefined,
    }));
    const tokenId = m.tokenIds[index] as string;
    const resting: Liquidity[] = [...this.orders.values()]
      .filter(
        (o) => o.status === 'LIVE' && o.tokenId === tokenId && o.side === opposite(side) && o.id !== except,
      )
      .map((o) => ({ priceMicro: priceMicroOf(o), shares: this.makerCapacity(o), order: o }));
    return [...house, ...resting];
  }

  /**
   * Runs `order` as a taker. Refusals (post-only crossing, FOK not filled, FAK nothing to hit,
   * fees beyond the balance) throw before anything moved. Sets the order's status.
   */
  private match(order: ClobOrder, m: MarketRecord, index: number): TradeRecord | undefined {
    const p = plan(
      {
        side: order.side,
        limitNum: order.limitNum,
        limitDen: order.limitDen,
        shares: remainingShares(order),
        budget: order.amountBound ? order.struct.makerAmount - order.notionalMatched : undefined,
      },
      this.liquidityFor(m, index, order.side, order.id),
    );
    if (order.postOnly && p.fills.length > 0) throw new OrderRejection(400, ERR.postOnlyCross);
    if (order.orderType === 'FOK' && !p.complete) throw new OrderRejection(400, ERR.fok);
    if (order.orderType === 'FAK' && p.fills.length === 0) throw new OrderRejection(400, ERR.fak);
    const fee = m.feesEnabled ? p.fills.reduce((s, f) => s + takerFee(f.shares, f.priceMicro), 0n) : 0n;
    if (order.side === 'BUY' && p.fills.length > 0) this.checkFunds(order, p.cost + fee);
    const trade = p.fills.length > 0 ? this.execute(order, m, index, p, fee) : undefined;
    const resting = order.orderType === 'GTC' || order.orderType === 'GTD';
    order.status = resting && remainingShares(order) > 0n ? 'LIVE' : 'MATCHED';
    return trade;
  }

  /** Applies a taker's plan: ledgers, maker orders, house liquidity, the market's last trade. */
  private execute(taker: ClobOrder, m: MarketRecord, index: number, p: Plan, fee: bigint): TradeRecord {
    const { ledger, basis } = this.host;
    const legs: LedgerLeg[] = [];
    const makers: MakerFill[] = [];
    const tradeSeq = ++this.seq;
    const id = uuidFrom(`trade:${tradeSeq}:${taker.id}`);
    for (const f of p.fills) {
      const maker = f.source.order;
      const makerAddress = maker ? maker.maker : HOUSE_ADDRESS;
      const [buyer, seller]: [string, string] =
        taker.side === 'BUY' ? [taker.maker, makerAddress] : [makerAddress, taker.maker];
      legs.push(
        ...settleFill(ledger, basis, {
          buyer,
          seller,
          tokenId: taker.tokenId,
          shares: f.shares,
          cost: f.cost,
          exchange: taker.exchange,
        }),
      );
      if (maker) {
        maker.sizeMatched += f.shares;
        maker.notionalMatched += f.cost;
        maker.associateTrades.push(id);
        if (remainingShares(maker) === 0n) maker.status = 'MATCHED';
      } else {
        const price = Number(f.priceMicro) / 1e6;
        takeLiquidity(m, index, taker.side === 'BUY' ? 'asks' : 'bids', price, Number(f.shares) / 1e6);
      }
      makers.push({
        orderId: maker?.id ?? `0x${sha256Hex(`house:${taker.tokenId}:${f.priceMicro}:${m.bookVersion}`)}`,
        ownerKey: maker?.ownerKey ?? HOUSE_OWNER,
        ownerAddress: maker?.ownerAddress ?? HOUSE_ADDRESS,
        makerAddress,
        side: opposite(taker.side),
        shares: f.shares,
        priceMicro: f.priceMicro,
      });
    }
    if (fee > 0n) {
      // Collected by the operator at match time, not pulled through the exchange allowance.
      const leg: LedgerLeg = { asset: 'pusd', from: taker.maker, to: HOUSE_ADDRESS, amount: fee };
      applyLeg(ledger, leg, undefined);
      legs.push(leg);
    }
    taker.sizeMatched += p.shares;
    taker.notionalMatched += p.cost;
    taker.associateTrades.push(id);
    const last = p.fills[p.fills.length - 1];
    if (last) this.noteTrade(m, index, taker.side, last.priceMicro, p.cost);
    return this.record({
      id,
      seq: tradeSeq,
      takerOrderId: taker.id,
      takerOwnerKey: taker.ownerKey,
      takerOwnerAddress: taker.ownerAddress,
      takerMaker: taker.maker,
      conditionId: taker.conditionId,
      tokenId: taker.tokenId,
      outcome: taker.outcome,
      side: taker.side,
      shares: p.shares,
      notional: p.cost,
      fee,
      makers,
      legs,
    });
  }

  private record(t: Omit<TradeRecord, 'status' | 'matchMs' | 'updatedMs' | 'transactionHash'>): TradeRecord {
    const now = this.host.now();
    const trade: TradeRecord = {
      ...t,
      status: 'MATCHED',
      matchMs: now,
      updatedMs: now,
      // Settlement is emulated, but clients wait for a hash (the official client polls for one).
      transactionHash: `0x${sha256Hex(`tx:${t.id}`)}`,
    };
    this.trades.set(trade.id, trade);
    this.host.notePublicTrade(trade);
    return trade;
  }

  /** The market's last trade, volume and book timestamp follow fills (YES-equivalent terms). */
  private noteTrade(m: MarketRecord, index: number, side: Side, priceMicro: bigint, notional: bigint) {
    const p = Number(priceMicro) / 1e6;
    m.lastTrade = index === 0 ? { price: p, side } : { price: clean(1 - p), side: opposite(side) };
    const usd = Number(notional) / 1e6;
    m.volume = clean(m.volume + usd);
    m.volume24hr = clean(m.volume24hr + usd);
    m.bookUpdatedMs = this.host.now();
  }

  /**
   * The house takes `shares` of a resting order at the order's own price (the order is the
   * maker). Used by price moves that cross resting orders and by the admin "cross" action.
   */
  private fillResting(o: ClobOrder, m: MarketRecord, index: number, shares: bigint): TradeRecord | undefined {
    const take = min(shares, this.makerCapacity(o));
    if (take <= 0n) return undefined;
    const priceMicro = priceMicroOf(o);
    const cost = costOf(take, priceMicro);
    const [buyer, seller]: [string, string] =
      o.side === 'BUY' ? [o.maker, HOUSE_ADDRESS] : [HOUSE_ADDRESS, o.maker];
    const legs = settleFill(this.host.ledger, this.host.basis, {
      buyer,
      seller,
      tokenId: o.tokenId,
      shares: take,
      cost,
      exchange: o.exchange,
    });
    const tradeSeq = ++this.seq;
    const id = uuidFrom(`trade:${tradeSeq}:${o.id}`);
    o.sizeMatched += take;
    o.notionalMatched += cost;
    o.associateTrades.push(id);
    if (remainingShares(o) === 0n) o.status = 'MATCHED';
    this.noteTrade(m, index, opposite(o.side), priceMicro, cost);
    return this.record({
      id,
      seq: tradeSeq,
      takerOrderId: `0x${sha256Hex(`house-taker:${tradeSeq}`)}`,
      takerOwnerKey: HOUSE_OWNER,
      takerOwnerAddress: HOUSE_ADDRESS,
      takerMaker: HOUSE_ADDRESS,
      conditionId: o.conditionId,
      tokenId: o.tokenId,
      outcome: o.outcome,
      side: opposite(o.side),
      shares: take,
      notional: cost,
      fee: 0n,
      makers: [
        {
          orderId: o.id,
          ownerKey: o.ownerKey,
          ownerAddress: o.ownerAddress,
          makerAddress: o.maker,
          side: o.side,
          shares: take,
          priceMicro,
        },
      ],
      legs,
    });
  }

  /**
   * After the synthetic book moved (admin price move), resting orders it now crosses are filled
   * against it, oldest first, as far as the crossing levels reach; the levels are used up.
   */
  sweep(m: MarketRecord): TradeRecord[] {
    const out: TradeRecord[] = [];
    m.tokenIds.forEach((tokenId, index) => {
      const resting = [...this.orders.values()]
        .filter((o) => o.status === 'LIVE' && o.tokenId === tokenId)
        .sort((a, b) => a.seq - b.seq);
      for (const o of resting) {
        const book = bookOf(m, index);
        const side = o.side === 'BUY' ? 'asks' : 'bids';
        const price = Number(priceMicroOf(o)) / 1e6;
        const crossing = book[side].filter((l) => (o.side === 'BUY' ? l.price <= price : l.price >= price));
        const available = crossing.reduce((s, l) => s + toUnits(l.size), 0n);
        const trade = this.fillResting(o, m, index, min(available, remainingShares(o)));
        if (!trade) continue;
        out.push(trade);
        // Use the crossing levels up, best first (the house's most aggressive quotes go first).
        let left = trade.shares;
        for (const l of [...crossing].reverse()) {
          if (left <= 0n) break;
          const take = min(left, toUnits(l.size));
          takeLiquidity(m, index, side, l.price, Number(take) / 1e6);
          left -= take;
        }
      }
    });
    return out;
  }

  /** Admin "cross this order": the house fills it (all, or `shares`) at its price. */
  cross(orderId: string, shares?: bigint): TradeRecord | undefined {
    const o = this.orders.get(orderId);
    if (!o || o.status !== 'LIVE') return undefined;
    const hit = this.host.marketByToken(o.tokenId);
    if (!hit) return undefined;
    return this.fillResting(o, hit.market, hit.index, min(shares ?? remainingShares(o), remainingShares(o)));
  }

  // ---- cancels ----

  cancel(ids: string[], ownerAddress: string): CancelResult {
    const out: CancelResult = { canceled: [], not_canceled: {} };
    for (const id of ids) {
      const o = this.orders.get(id);
      if (!o || o.ownerAddress !== ownerAddress) out.not_canceled[id] = "order can't be found";
      else if (!OPEN(o)) out.not_canceled[id] = 'already canceled or matched';
      else {
        o.status = 'CANCELED';
        out.canceled.push(id);
      }
    }
    return out;
  }

  openOrders(ownerAddress: string): ClobOrder[] {
    return [...this.orders.values()].filter((o) => OPEN(o) && o.ownerAddress === ownerAddress);
  }

  /** Market closed or resolved: its open orders are gone. */
  cancelMarket(m: MarketRecord): void {
    for (const o of this.orders.values())
      if (OPEN(o) && o.conditionId === m.conditionId) o.status = 'CANCELED';
  }

  // ---- trades ----

  setTradeStatus(trade: TradeRecord, status: TradeStatus): void {
    if (trade.status === status) return;
    if (status === 'FAILED') rollBack(this.host.ledger, trade);
    trade.status = status;
    trade.updatedMs = this.host.now();
  }

  /** Admin: every unfinished trade to `status` (default CONFIRMED). */
  settleAll(status: TradeStatus = 'CONFIRMED'): number {
    let n = 0;
    for (const t of this.trades.values()) {
      if (isFinal(t)) continue;
      this.setTradeStatus(t, status);
      n++;
    }
    return n;
  }

  // ---- clock ----

  /** Runs due delayed orders, expires GTD orders and moves trades along. */
  sync(now: number): void {
    const due = [...this.orders.values()]
      .filter((o) => o.status === 'DELAYED' && (o.delayedUntilMs ?? 0) <= now)
      .sort((a, b) => a.seq - b.seq);
    for (const o of due) this.runDelayed(o);
    for (const o of this.orders.values()) {
      if (o.status === 'LIVE' && o.orderType === 'GTD' && o.expiration * 1000 <= now) o.status = 'CANCELED';
      if (OPEN(o) && !this.host.marketByToken(o.tokenId)) o.status = 'CANCELED';
    }
    advanceTrades(this.trades.values(), this.settings, now);
  }

  /** Admin: run every delayed order now. */
  releaseDelayed(): number {
    const due = [...this.orders.values()].filter((o) => o.status === 'DELAYED').sort((a, b) => a.seq - b.seq);
    for (const o of due) this.runDelayed(o);
    return due.length;
  }

  /** A delayed order meets the book; what would have been an HTTP refusal becomes its status. */
  private runDelayed(o: ClobOrder): void {
    o.delayedUntilMs = undefined;
    const hit = this.host.marketByToken(o.tokenId);
    if (!hit || hit.market.closed || !hit.market.acceptingOrders) {
      o.status = 'CANCELED';
      return;
    }
    o.status = 'LIVE';
    try {
      this.checkFunds(o, o.side === 'BUY' ? o.struct.makerAmount : o.shares);
      this.match(o, hit.market, hit.index);
    } catch (err) {
      if (!(err instanceof OrderRejection)) throw err;
      o.status = o.orderType === 'FOK' || o.orderType === 'FAK' ? 'UNMATCHED' : 'CANCELED';
    }
  }
}

/** Human-unit decimal string of a price ratio (6 decimals at most). */
export const priceText = (o: ClobOrder): string => fromUnits(priceMicroOf(o));
