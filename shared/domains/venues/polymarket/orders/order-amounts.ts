/**
 * makerAmount / takerAmount of a CLOB order from price and size, with the rounding the official
 * clients apply (polymarket.md §6.4), in exact decimal arithmetic: every quantity is a fraction of
 * BigInts, so no float noise decides a base unit.
 */
interface Dec {
  n: bigint;
  d: bigint;
}

const TEN = 10n;
const pow10 = (k: number) => TEN ** BigInt(k);

/** A decimal number (finite, given as a JS number or decimal string) as an exact fraction. */
function dec(x: number | string): Dec {
  const s = typeof x === 'number' ? x.toString() : x;
  if (/e/i.test(s)) return dec(Number(s).toFixed(20));
  const [int, frac = ''] = s.split('.');
  return { n: BigInt(`${int}${frac}`), d: pow10(frac.length) };
}
const mul = (a: Dec, b: Dec): Dec => ({ n: a.n * b.n, d: a.d * b.d });
const div = (a: Dec, b: Dec): Dec => ({ n: a.n * b.d, d: a.d * b.n });

/** `a` to `k` decimals: `floor`, `ceil` or half-up (`round`); the result's denominator is 10^k. */
function toDecimals(a: Dec, k: number, mode: 'floor' | 'ceil' | 'round'): Dec {
  const scaled = a.n * pow10(k);
  let q = scaled / a.d;
  const r = scaled % a.d;
  if (mode === 'ceil' && r > 0n) q += 1n;
  if (mode === 'round' && 2n * r >= a.d) q += 1n;
  return { n: q, d: pow10(k) };
}

/** Whether `a` is exactly representable with at most `k` decimals. */
const fitsDecimals = (a: Dec, k: number) => (a.n * pow10(k)) % a.d === 0n;

/** `a` in 6-decimal base units, as the integer string the order carries. */
const baseUnits = (a: Dec) => ((a.n * pow10(6)) / a.d).toString();

/** Decimals of price, size and amount per tick size (polymarket.md §6.4 table). */
export function roundingFor(tick: number): { price: number; size: number; amount: number } {
  const table: Record<string, { price: number; size: number; amount: number }> = {
    '0.1': { price: 1, size: 2, amount: 3 },
    '0.01': { price: 2, size: 2, amount: 4 },
    '0.005': { price: 3, size: 2, amount: 5 },
    '0.0025': { price: 4, size: 2, amount: 6 },
    '0.001': { price: 3, size: 2, amount: 5 },
    '0.0001': { price: 4, size: 2, amount: 6 },
  };
  const found = table[String(tick)];
  if (!found) throw new Error(`unsupported tick size ${tick}`);
  return found;
}

/** The product or quotient kept as the clients keep it: exact if short enough, else up at +4 then down. */
function amountOf(a: Dec, decimals: number): Dec {
  if (fitsDecimals(a, decimals)) return toDecimals(a, decimals, 'floor');
  const up = toDecimals(a, decimals + 4, 'ceil');
  return fitsDecimals(up, decimals) ? up : toDecimals(up, decimals, 'floor');
}

export interface OrderAmounts {
  makerAmount: string;
  takerAmount: string;
  /** The price after rounding, as signed. */
  price: number;
}

/** A limit order of `size` shares at `price` (GTC/GTD, or a sell of any type). */
export function limitOrderAmounts(
  side: 'BUY' | 'SELL',
  size: number,
  price: number,
  tick: number,
): OrderAmounts {
  const r = roundingFor(tick);
  const p = toDecimals(dec(price), r.price, 'round');
  const s = toDecimals(dec(size), r.size, 'floor');
  const notional = amountOf(mul(s, p), r.amount);
  return side === 'BUY'
    ? { makerAmount: baseUnits(notional), takerAmount: baseUnits(s), price: Number(p.n) / Number(p.d) }
    : { makerAmount: baseUnits(s), takerAmount: baseUnits(notional), price: Number(p.n) / Number(p.d) };
}

/** A market buy spending `amount` pUSD at worst price `price` (FOK/FAK). */
export function marketBuyAmounts(amount: number, price: number, tick: number): OrderAmounts {
  const r = roundingFor(tick);
  const p = toDecimals(dec(price), r.price, 'floor');
  const spend = toDecimals(dec(amount), 2, 'floor');
  const shares = amountOf(div(spend, p), r.amount);
  return { makerAmount: baseUnits(spend), takerAmount: baseUnits(shares), price: Number(p.n) / Number(p.d) };
}
