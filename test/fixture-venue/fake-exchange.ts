import { randomUUID } from 'node:crypto';

/**
 * The fixture venue's counterpart: an in-memory exchange of binary markets, each with a book
 * quoted around its YES price. What a real venue's API would answer over HTTP it answers by method
 * call; orders are kept by the caller's client order id, so placing the same order twice is one
 * order (what the trading seam relies on to run a trade exactly once).
 */

export interface ExchangeMarket {
  id: string;
  slug: string;
  question: string;
  yes: number;
  closed: boolean;
  /** True YES won, false NO won; null while unresolved. */
  outcome: boolean | null;
  resolvedAt: Date | null;
  endDate: Date;
}

export interface Level {
  price: number;
  size: number;
}

export interface ExchangeOrderRequest {
  clientOrderId: string;
  marketId: string;
  outcome: 'yes' | 'no';
  action: 'buy' | 'sell';
  /** USD to spend (buys) or shares to sell. */
  size: number;
  /** The worst price accepted; null takes the book as it is. */
  limit: number | null;
  /** FAK/FOK take what crosses now; GTC rests the remainder. */
  type: 'FAK' | 'FOK' | 'GTC';
}

export interface ExchangeOrder {
  id: string;
  clientOrderId: string;
  request: ExchangeOrderRequest;
  filledShares: number;
  filledAmount: number;
  status: 'live' | 'matched' | 'canceled';
}

export type OrderRefusal = { refused: string };

/** Depth per level and distance between levels: enough for the tests' sizes, a two-sided book. */
const LEVEL_SIZE = 500;
const TICK = 0.01;
const SPREAD_TICKS = 1;
const LEVELS = 5;

const roundTick = (p: number) => Math.round(p / TICK) * TICK;
const clampPrice = (p: number) => Math.min(0.99, Math.max(0.01, roundTick(p)));

export class FakeExchange {
  private readonly markets = new Map<string, ExchangeMarket>();
  private readonly orders = new Map<string, ExchangeOrder>();

  /** Lists a new open market at `yes` (ids and slugs unique per call unless `id` is given). */
  listMarket(question: string, yes = 0.5, id = `fx-${randomUUID().slice(0, 8)}`): ExchangeMarket {
    const market: ExchangeMarket = {
      id,
      slug: `${question
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '')}-${id}`,
      question,
      yes,
      closed: false,
      outcome: null,
      resolvedAt: null,
      endDate: new Date(Date.now() + 30 * 86_400_000),
    };
    this.markets.set(id, market);
    return market;
  }

  market(id: string): ExchangeMarket | null {
    return this.markets.get(id.toLowerCase()) ?? null;
  }

  marketBySlug(slug: string): ExchangeMarket | null {
    return [...this.markets.values()].find((m) => m.slug === slug) ?? null;
  }

  openMarkets(): ExchangeMarket[] {
    return [...this.markets.values()].filter((m) => !m.closed);
  }

  /** The venue's price moves (other traders, news): the book re-centres on it. */
  setPrice(id: string, yes: number): void {
    this.mustFind(id).yes = yes;
  }

  /** The venue resolves the market: trading stops, resting orders are cancelled. */
  resolve(id: string, outcome: boolean): void {
    const m = this.mustFind(id);
    Object.assign(m, { closed: true, outcome, resolvedAt: new Date() });
    for (const o of this.orders.values())
      if (o.request.marketId === m.id && o.status === 'live') o.status = 'canceled';
  }

  /** One outcome's book, best first: asks above and bids below the outcome's price. */
  book(id: string, outcome: 'yes' | 'no'): { bids: Level[]; asks: Level[] } | null {
    const m = this.market(id);
    if (!m) return null;
    if (m.closed) return { bids: [], asks: [] };
    const mid = outcome === 'yes' ? m.yes : 1 - m.yes;
    const level = (i: number, sign: 1 | -1) => ({
      price: clampPrice(mid + sign * (SPREAD_TICKS + i) * TICK),
      size: LEVEL_SIZE,
    });
    const range = [...Array(LEVELS).keys()];
    return { bids: range.map((i) => level(i, -1)), asks: range.map((i) => level(i, 1)) };
  }

  /**
   * Places an order, or answers the one already placed under its client order id. Takes the book
   * up to the limit; a GTC remainder rests, a FOK that cannot fill whole is refused.
   */
  placeOrder(req: ExchangeOrderRequest): ExchangeOrder | OrderRefusal {
    const earlier = [...this.orders.values()].find((o) => o.clientOrderId === req.clientOrderId);
    if (earlier) return earlier;
    const m = this.market(req.marketId);
    if (!m) return { refused: 'unknown market' };
    if (m.closed) return { refused: 'market closed' };
    const book = this.book(m.id, req.outcome)!;
    const levels = (req.action === 'buy' ? book.asks : book.bids).filter(
      (l) => req.limit === null || (req.action === 'buy' ? l.price <= req.limit : l.price >= req.limit),
    );
    let shares = 0;
    let amount = 0;
    for (const l of levels) {
      const left = req.action === 'buy' ? req.size - amount : req.size - shares;
      if (left <= 1e-9) break;
      const take = req.action === 'buy' ? Math.min(l.size, left / l.price) : Math.min(l.size, left);
      shares += take;
      amount += take * l.price;
    }
    const whole = req.action === 'buy' ? amount >= req.size - 1e-6 : shares >= req.size - 1e-6;
    if (req.type === 'FOK' && !whole) return { refused: 'order could not be filled whole' };
    if (req.type === 'FAK' && shares === 0) return { refused: 'no liquidity at this price' };
    const order: ExchangeOrder = {
      id: `ord-${randomUUID()}`,
      clientOrderId: req.clientOrderId,
      request: req,
      filledShares: shares,
      filledAmount: amount,
      status: whole || req.type !== 'GTC' ? 'matched' : 'live',
    };
    this.orders.set(order.id, order);
    return order;
  }

  order(id: string): ExchangeOrder | null {
    return this.orders.get(id) ?? null;
  }

  orderByClientId(clientOrderId: string): ExchangeOrder | null {
    return [...this.orders.values()].find((o) => o.clientOrderId === clientOrderId) ?? null;
  }

  /** Cancels a resting order; a matched or cancelled one stays as it is. */
  cancel(id: string): { canceled: true } | OrderRefusal {
    const o = this.orders.get(id);
    if (!o) return { refused: 'unknown order' };
    if (o.status !== 'live') return { refused: `order is ${o.status}` };
    o.status = 'canceled';
    return { canceled: true };
  }

  private mustFind(id: string): ExchangeMarket {
    const m = this.market(id);
    if (!m) throw new Error(`no fixture market ${id}`);
    return m;
  }
}
