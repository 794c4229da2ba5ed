import type { ClobSettings, TradeRecord, TradeStatus } from './clob-records.js';

// Settlement progress of trades (reference §5.3): MATCHED → MINED → CONFIRMED, or RETRYING /
// FAILED. Driven only by the emulator clock (settings.minedAfterMs / confirmedAfterMs after the
// match) and by the admin API, so tests decide when a trade is final.

const FINAL: TradeStatus[] = ['CONFIRMED', 'FAILED'];

export const isFinal = (t: TradeRecord) => FINAL.includes(t.status);

/** Moves trades along the clock. A RETRYING trade waits for the admin API. */
export function advanceTrades(trades: Iterable<TradeRecord>, s: ClobSettings, nowMs: number): void {
  for (const t of trades) {
    if (t.status !== 'MATCHED' && t.status !== 'MINED') continue;
    if (s.confirmedAfterMs !== null && nowMs >= t.matchMs + s.confirmedAfterMs) {
      t.status = 'CONFIRMED';
      t.updatedMs = t.matchMs + s.confirmedAfterMs;
    } else if (t.status === 'MATCHED' && s.minedAfterMs !== null && nowMs >= t.matchMs + s.minedAfterMs) {
      t.status = 'MINED';
      t.updatedMs = t.matchMs + s.minedAfterMs;
    }
  }
}

export const TRADE_STATUSES: TradeStatus[] = ['MATCHED', 'MINED', 'CONFIRMED', 'RETRYING', 'FAILED'];
