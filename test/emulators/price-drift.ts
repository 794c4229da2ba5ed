import { prng } from '../../shared/util/prng.js';

// For the offline demo (`VENUES=emulated npm start`): a venue's prices wander by themselves, as real
// ones do, so that imported markets re-price, the crowd's trades print on the public tapes and a
// backtest tape has history to replay. Each move goes through the emulator's own admin price call
// (what tests do by hand), so a drifted move is exactly a scripted one. Seeded: the same walk every run.

export interface DriftMarket {
  id: string;
  /** YES price now, in (0, 1). */
  yes: number;
  tick: number;
}

export interface PriceDriftOptions {
  everyMs: number;
  /** Markets open for trading now. */
  markets: () => DriftMarket[];
  /** Moves one market's YES price (the emulator's admin price call). */
  move: (id: string, yes: number) => Promise<void>;
  /** Markets moved per step at most. */
  perStep?: number;
  seed?: number;
}

/** Starts the walk; the returned function stops it. */
export function startPriceDrift(opts: PriceDriftOptions): () => void {
  const rand = prng(opts.seed ?? 20261127);
  const perStep = opts.perStep ?? 12;
  let running = false;
  const step = async () => {
    if (running) return;
    running = true;
    try {
      const open = opts.markets();
      for (let i = 0; i < Math.min(perStep, open.length); i++) {
        const m = open[Math.floor(rand() * open.length)]!;
        const ticks = (1 + Math.floor(rand() * 3)) * (rand() < 0.5 ? -1 : 1);
        const yes = Math.min(1 - 2 * m.tick, Math.max(2 * m.tick, m.yes + ticks * m.tick));
        await opts.move(m.id, Number(yes.toFixed(4))).catch(() => undefined);
      }
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void step(), opts.everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** The admin price call of an emulator: POST {adminUrl}/markets/{id}/price {yes}. */
export const adminPriceMove = (adminUrl: string) => async (id: string, yes: number) => {
  await fetch(`${adminUrl}/markets/${encodeURIComponent(id)}/price`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ yes }),
  });
};
