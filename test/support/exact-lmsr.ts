/**
 * The LMSR of reference/amm-and-peers.md §2.1 in exact-enough arithmetic, independent of the code
 * under test: BigInt fixed point with 256 fractional bits (errors near 1e-70), its own exp and ln
 * (series), and the cost function evaluated as written, `C(q) = b·ln(e^{qYes/b} + e^{qNo/b})`,
 * a trade's cost as `C(q') − C(q)`. Tests compare the service's float results, rounded to
 * micro-units, with these; a float evaluation can be off by far less than a micro-unit, never by the
 * rounding direction this pins.
 */

const FRAC = 256n;
const ONE = 1n << FRAC;
const MICRO = 1_000_000n;

/** A real number as an integer count of 2^-256. */
type Fixed = bigint;

/** A double, exactly (every double is m·2^e with integer m). */
function fromDouble(d: number): Fixed {
  if (!Number.isFinite(d)) throw new Error(`not finite: ${d}`);
  let m = d;
  let e = 0n;
  while (!Number.isInteger(m)) {
    m *= 2;
    e -= 1n;
  }
  const shift = FRAC + e;
  if (shift < 0n) throw new Error(`more than ${FRAC} fractional bits: ${d}`);
  return BigInt(m) << shift;
}

const fromMicro = (micro: bigint): Fixed => (micro << FRAC) / MICRO;
const mul = (a: Fixed, b: Fixed): Fixed => (a * b) >> FRAC;
const div = (a: Fixed, b: Fixed): Fixed => (a << FRAC) / b;

/** 2·atanh(t) = ln((1 + t)/(1 − t)), for 0 ≤ t < 1/2 (the series converges geometrically in t²). */
function twoAtanh(t: Fixed): Fixed {
  const t2 = mul(t, t);
  let power = t;
  let sum = 0n;
  for (let k = 1n; power !== 0n; k += 2n) {
    sum += power / k;
    power = mul(power, t2);
  }
  return 2n * sum;
}

const LN2 = twoAtanh(ONE / 3n);

function bitLength(n: bigint): bigint {
  return BigInt(n.toString(2).length);
}

/** ln y for y > 0: y = m·2^k with m in [1, 2), ln m = 2·atanh((m − 1)/(m + 1)). */
function ln(y: Fixed): Fixed {
  if (y <= 0n) throw new Error('ln of a non-positive number');
  const k = bitLength(y) - (FRAC + 1n);
  const m = k >= 0n ? y >> k : y << -k;
  return twoAtanh(div(m - ONE, m + ONE)) + k * LN2;
}

/** e^x: x = n·ln 2 + r with |r| ≤ ln 2 / 2, e^r by its Taylor series, times 2^n. */
function exp(x: Fixed): Fixed {
  const n = (x + LN2 / 2n) / LN2 - (x + LN2 / 2n < 0n ? 1n : 0n);
  const r = x - n * LN2;
  let term = ONE;
  let sum = ONE;
  for (let i = 1n; term !== 0n; i++) {
    term = mul(term, r) / i;
    sum += term;
  }
  return n >= 0n ? sum << n : sum >> -n;
}

/** A sim book as stored: anchor (doubles), liquidity and the fills (integer micro-shares). */
export interface StoredBook {
  b: number;
  q0Yes: number;
  q0No: number;
  yesMicro: number;
  noMicro: number;
}

interface ExactState {
  b: Fixed;
  qYes: Fixed;
  qNo: Fixed;
}

/** The book's outstanding shares exactly: anchor plus fills, with no float rounding of the sum. */
const exactState = (book: StoredBook): ExactState => ({
  b: fromDouble(book.b),
  qYes: fromDouble(book.q0Yes) + fromMicro(BigInt(book.yesMicro)),
  qNo: fromDouble(book.q0No) + fromMicro(BigInt(book.noMicro)),
});

/** C(q) = b·ln(e^{qYes/b} + e^{qNo/b}). */
const costFunction = (s: ExactState): Fixed => mul(s.b, ln(exp(div(s.qYes, s.b)) + exp(div(s.qNo, s.b))));

/** C(q with `sharesMicro` more of `side`) − C(q), in micro-units (a real number, as a fraction n/d). */
function tradeValueMicro(book: StoredBook, side: 'yes' | 'no', sharesMicro: number): Fixed {
  const s = exactState(book);
  const delta = fromMicro(BigInt(sharesMicro));
  const after = side === 'yes' ? { ...s, qYes: s.qYes + delta } : { ...s, qNo: s.qNo + delta };
  return (costFunction(after) - costFunction(s)) * MICRO;
}

const floorToInteger = (x: Fixed) => x >> FRAC;
const ceilToInteger = (x: Fixed) => -(-x >> FRAC);
/** Distance from x to the nearest integer, as a double (for picking cases where rounding matters). */
const fraction = (x: Fixed) => Number(x - (floorToInteger(x) << FRAC)) / Number(ONE);

/** What buying `sharesMicro` of `side` costs exactly, in micro-units: the floor, the ceiling, and the fraction. */
export function exactBuyCostMicro(book: StoredBook, side: 'yes' | 'no', sharesMicro: number) {
  const v = tradeValueMicro(book, side, sharesMicro);
  return { floor: Number(floorToInteger(v)), ceil: Number(ceilToInteger(v)), fraction: fraction(v) };
}

/** What selling `sharesMicro` of `side` pays exactly, in micro-units: the floor, the ceiling, and the fraction. */
export function exactSaleProceedsMicro(book: StoredBook, side: 'yes' | 'no', sharesMicro: number) {
  const v = -tradeValueMicro(book, side, -sharesMicro);
  return { floor: Number(floorToInteger(v)), ceil: Number(ceilToInteger(v)), fraction: fraction(v) };
}
