import type { Settlement } from '../../trading/venue-trading.js';
import type { TradeRecord } from '../../trading/trade.model.js';
import { credentialsOf, type PolymarketContext } from './execute-polymarket-order.js';
import type { ClobTrade } from './orders/clob-trading.schemas.js';
import { polymarketTrading } from './polymarket-trading.js';

/**
 * Where the chain stands on a Polymarket order's matches (polymarket.md §5.2–5.3): the CLOB keeps a
 * Trade per match, `MATCHED` → `MINED` → `CONFIRMED`, or `RETRYING` (resubmitted) and `FAILED` (the
 * settlement transaction reverted: no tokens nor pUSD moved). The order's `associate_trades` name
 * them; each is read with `GET /data/trades?id=`. The order is settled once every one of its
 * trades is final; what the FAILED ones matched of this order is rolled back.
 */

const FINAL = new Set(['CONFIRMED', 'FAILED']);

/** This order's shares in one trade: all of it when it is the taker, its maker fill otherwise. */
function sharesOfOrder(trade: ClobTrade, orderId: string): number {
  if (trade.taker_order_id?.toLowerCase() === orderId.toLowerCase()) return Math.round(trade.size * 1e6);
  const fills = (trade.maker_orders ?? []).filter((m) => m.order_id.toLowerCase() === orderId.toLowerCase());
  return fills.reduce((s, m) => s + Math.round(m.matched_amount * 1e6), 0);
}

export async function polymarketSettlement(
  ctx: PolymarketContext,
  t: TradeRecord,
): Promise<Settlement | null> {
  const orderId = t.venueOrder?.orderId;
  if (!orderId) return null;
  const creds = await credentialsOf(ctx, t);
  if (!creds) return null;
  const clob = polymarketTrading(ctx.deps);
  const order = await clob.order(creds, orderId);
  const ids = order?.associate_trades ?? [];
  // The CLOB names no trade of a matched order (yet): nothing to judge on, asked again next run.
  if (!ids.length) return null;
  const trades: ClobTrade[] = [];
  for (const id of ids) {
    const found = (await clob.tradesOf(creds, { id })).find((x) => x.id === id);
    if (!found) return null;
    trades.push(found);
  }
  const status = (x: ClobTrade) => x.status.toUpperCase();
  if (trades.some((x) => !FINAL.has(status(x)))) return { state: 'pending' };
  const failed = trades.filter((x) => status(x) === 'FAILED');
  if (!failed.length) return { state: 'confirmed' };
  const failedSharesMicro = failed.reduce((s, x) => s + sharesOfOrder(x, orderId), 0);
  const hashes = failed.map((x) => x.transaction_hash).filter(Boolean);
  return {
    state: 'failed',
    failedSharesMicro,
    reason:
      `Polymarket matched the order but its settlement failed on chain (trade ${failed.map((x) => x.id).join(', ')} FAILED` +
      `${hashes.length ? `, transaction ${hashes.join(', ')}` : ''}): ` +
      `${failedSharesMicro / 1e6} shares and their pUSD never moved, and the booking was rolled back.`,
  };
}
