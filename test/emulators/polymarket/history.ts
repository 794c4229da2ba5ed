import { seededRandom } from './ids.js';
import type { MarketRecord } from './model.js';

// Price history for `/prices-history`: before the market's history anchor (the catalogue start)
// a seeded random walk that *ends* at the anchor price; from the anchor on, the step function of
// recorded moves (admin price changes, resolution). So history is deterministic, and its last
// point is the current price.

const HOUR_MS = 3_600_000;
/** History is served for at most this long before the anchor (keeps `interval=max` bodies sane). */
export const MAX_HISTORY_MS = 30 * 24 * HOUR_MS;

const walks = new WeakMap<MarketRecord, number[]>();

/** walk[k] = price k hours before the anchor; walk[0] is the anchor price. */
function walkOf(m: MarketRecord): number[] {
  let walk = walks.get(m);
  if (walk) return walk;
  const hours =
    Math.ceil(Math.min(MAX_HISTORY_MS, Math.max(0, m.historyAnchorMs - m.createdMs)) / HOUR_MS) + 1;
  const rand = seededRandom(`walk:${m.conditionId}`);
  walk = [m.moves[0]?.p ?? m.price];
  for (let k = 1; k <= hours; k++) {
    const prev = walk[k - 1] as number;
    walk.push(Math.min(0.99, Math.max(0.01, prev + (rand() - 0.5) * 0.03)));
  }
  walks.set(m, walk);
  return walk;
}

/** Price of outcome 0 at `tMs`. */
export function priceAt(m: MarketRecord, tMs: number): number {
  if (tMs >= m.historyAnchorMs) {
    let p = m.moves[0]?.p ?? m.price;
    for (const mv of m.moves) if (mv.t <= tMs) p = mv.p;
    return p;
  }
  const walk = walkOf(m);
  const h = (m.historyAnchorMs - tMs) / HOUR_MS;
  const k = Math.min(Math.floor(h), walk.length - 2);
  const frac = Math.min(1, h - k);
  const a = walk[k] as number;
  const b = walk[k + 1] as number;
  return a + (b - a) * frac;
}

/** Earliest instant with history, and the latest (now, or the settlement for closed markets). */
export function historyBounds(m: MarketRecord, nowMs: number): { fromMs: number; toMs: number } {
  const fromMs = Math.max(m.createdMs, m.historyAnchorMs - MAX_HISTORY_MS);
  const lastMove = m.moves.at(-1)?.t ?? nowMs;
  return { fromMs, toMs: m.closed ? Math.min(nowMs, lastMove) : nowMs };
}

/** Points every `stepMs` in [startMs, endMs] ∩ bounds, `t` in unix seconds, `p` a number. */
export function historyPoints(
  m: MarketRecord,
  index: number,
  startMs: number,
  endMs: number,
  stepMs: number,
  nowMs: number,
): Array<{ t: number; p: number }> {
  const { fromMs, toMs } = historyBounds(m, nowMs);
  const lo = Math.max(startMs, fromMs);
  const hi = Math.min(endMs, toMs);
  const out: Array<{ t: number; p: number }> = [];
  const point = (t: number) => {
    const p0 = priceAt(m, t);
    const p = index === 0 ? p0 : 1 - p0;
    out.push({ t: Math.floor(t / 1000), p: Math.round(p * 10_000) / 10_000 });
  };
  for (let t = Math.ceil(lo / stepMs) * stepMs; t <= hi; t += stepMs) point(t);
  // Close the series at its end bound, so a history reaching "now" ends at the current price
  // (and a fresh admin price move shows up without waiting for the next bucket).
  const lastT = out.at(-1)?.t;
  if (hi >= lo && (lastT === undefined || lastT < Math.floor(hi / 1000))) point(hi);
  return out;
}
