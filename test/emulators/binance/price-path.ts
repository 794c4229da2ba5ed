// The emulated crypto price path: a pure function of (symbol, time), so the Binance emulator, the
// Polymarket emulator's fast markets and a test in another process all compute the same candle
// without sharing state. Log-price is a sum of value-noise octaves (hashed random levels at the
// grid points of each period, smoothly interpolated), seeded per symbol: it wanders like a price
// over days and wiggles over seconds, and any instant costs a handful of integer hashes.

/** Base price and tick of each emulated symbol (near their real levels, for realistic charts). */
export const PATH_SYMBOLS = {
  BTCUSDT: { base: 90_000, tick: 0.01, volume: 40 },
  ETHUSDT: { base: 3_000, tick: 0.01, volume: 600 },
  SOLUSDT: { base: 140, tick: 0.01, volume: 9_000 },
} as const;

export type PathSymbol = keyof typeof PATH_SYMBOLS;

export function isPathSymbol(symbol: string): symbol is PathSymbol {
  return Object.hasOwn(PATH_SYMBOLS, symbol);
}

/** Period (seconds) and log-amplitude of each octave: a few % a day, a few bp a minute. */
const OCTAVES: readonly (readonly [period: number, amplitude: number])[] = [
  [86_400, 0.03],
  [14_400, 0.012],
  [3_600, 0.006],
  [900, 0.003],
  [300, 0.0018],
  [60, 0.0009],
  [10, 0.0005],
];

/** A 32-bit integer mix (murmur3's finaliser): fast and well spread, unlike a cryptographic hash. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function seedOf(text: string): number {
  let h = 0x811c9dc5; // FNV-1a
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return mix(h >>> 0);
}

/** A uniform value in [-1, 1) for one grid point of one octave. */
function level(seed: number, octave: number, point: number): number {
  const lo = point >>> 0;
  const hi = Math.floor(point / 2 ** 32) >>> 0;
  return mix(seed ^ mix(octave * 0x9e3779b1 + lo) ^ mix(hi + 0x27d4eb2f)) / 2 ** 31 - 1;
}

/** Smoothly interpolated noise: hashed levels at integer points, smoothstep in between. */
function valueNoise(seed: number, octave: number, x: number): number {
  const i = Math.floor(x);
  const f = x - i;
  const s = f * f * (3 - 2 * f);
  return level(seed, octave, i) * (1 - s) + level(seed, octave, i + 1) * s;
}

/** The symbol's price at an instant (epoch ms), unrounded. */
export function priceAt(symbol: PathSymbol, ms: number): number {
  const seed = seedOf(symbol);
  const t = ms / 1000;
  let logMove = 0;
  OCTAVES.forEach(([period, amplitude], k) => (logMove += amplitude * valueNoise(seed, k, t / period)));
  return PATH_SYMBOLS[symbol].base * Math.exp(logMove);
}

function onTick(symbol: PathSymbol, price: number): number {
  const { tick } = PATH_SYMBOLS[symbol];
  return Math.round(price / tick) * tick;
}

export interface PathCandle {
  openTime: number;
  /** The candle's last millisecond, as Binance reports it. */
  closeTime: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  trades: number;
}

/**
 * The candle of `intervalMs` opening at `openTime`: open is the price at its first instant, close
 * the price at its end (so a candle's close is the next one's open, and the close of a window's last
 * candle is the price at the window's end), high/low the extremes of one-second samples.
 */
export function candleAt(symbol: PathSymbol, openTime: number, intervalMs: number): PathCandle {
  const open = onTick(symbol, priceAt(symbol, openTime));
  const close = onTick(symbol, priceAt(symbol, openTime + intervalMs));
  let high = Math.max(open, close);
  let low = Math.min(open, close);
  for (let t = openTime + 1000; t < openTime + intervalMs; t += 1000) {
    const p = onTick(symbol, priceAt(symbol, t));
    if (p > high) high = p;
    if (p < low) low = p;
  }
  const r = mix(seedOf(symbol) ^ mix(Math.floor(openTime / 1000))) / 2 ** 32;
  const volume = PATH_SYMBOLS[symbol].volume * (intervalMs / 60_000) * (0.3 + 1.4 * r);
  return {
    openTime,
    closeTime: openTime + intervalMs - 1,
    open,
    high,
    low,
    close,
    volume: Math.round(volume * 1e5) / 1e5,
    trades: Math.round(50 + r * 950),
  };
}

/** Whether the path ends the window at or above where it started (a fast market's "Up"). */
export function pathWentUp(symbol: PathSymbol, startMs: number, endMs: number): boolean {
  return onTick(symbol, priceAt(symbol, endMs)) >= onTick(symbol, priceAt(symbol, startMs));
}
