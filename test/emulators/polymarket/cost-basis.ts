// What the Data API knows beyond the chain: the average entry price of each holding (reference
// §7). Sizes come from the wallet ledger; this book only follows the prices fills happened at, so
// `/positions` can show avgPrice, initialValue and P&L for tokens that were bought on the CLOB.

export interface Basis {
  avgPrice: number;
  /** Shares bought in total (Data API `totalBought`). */
  totalBought: number;
  realizedPnl: number;
}

export class CostBasis {
  private readonly byUser = new Map<string, Map<string, Basis>>();

  reset(): void {
    this.byUser.clear();
  }

  get(user: string, token: string): Basis | undefined {
    return this.byUser.get(user.toLowerCase())?.get(token);
  }

  private put(user: string, token: string, b: Basis): void {
    const k = user.toLowerCase();
    const m = this.byUser.get(k) ?? new Map<string, Basis>();
    m.set(token, b);
    this.byUser.set(k, m);
  }

  /** Replaces the basis (admin seeding): `held` shares at `avgPrice`. */
  set(user: string, token: string, avgPrice: number, held: number): void {
    this.put(user, token, { avgPrice, totalBought: held, realizedPnl: 0 });
  }

  /** A buy of `shares` at `price` on top of `held` shares already owned. */
  recordBuy(user: string, token: string, held: number, shares: number, price: number): void {
    const b = this.get(user, token) ?? { avgPrice: 0, totalBought: 0, realizedPnl: 0 };
    const size = Math.max(held, 0);
    const avgPrice = size + shares > 0 ? (b.avgPrice * size + price * shares) / (size + shares) : price;
    this.put(user, token, { ...b, avgPrice, totalBought: b.totalBought + shares });
  }

  /** A sell of `shares` at `price`: the average stays, the difference is realised. */
  recordSell(user: string, token: string, shares: number, price: number): void {
    const b = this.get(user, token) ?? { avgPrice: price, totalBought: 0, realizedPnl: 0 };
    this.put(user, token, { ...b, realizedPnl: b.realizedPnl + (price - b.avgPrice) * shares });
  }
}
