// WARNING: queue names are persisted in Redis (under QUEUE_PREFIX). Renaming a queue strands the
// jobs already in it: add a new name, drain the old queue, then remove it.

/** Every BullMQ queue of the service. */
export const QUEUE_NAMES = [
  /** Service plumbing: readiness round trips and the scheduler heartbeat. */
  'system',
  /** Trade execution: the API waits on these (request-reply). */
  'trades',
  /** What follows a fill, off the trade's answer: its webhook event, the buy's monitor, the market's alerts. */
  'trade-effects',
  /** Paying out resolved markets. */
  'settlement',
  /** Market imports from external venues: the API waits on these (request-reply). */
  'market-imports',
  /** Keeping imported markets in step with their venues: prices, re-anchoring, closes, resolutions. */
  'venue-sync',
  /** Periodic read-model upkeep: leaderboard re-marks, rolling 24 h volumes. */
  'leaderboard',
  /** Relaying client-signed Polygon transactions and following them to their receipts. */
  'tx-broadcasts',
  /** Redeeming resolved Polymarket positions: on request (the API waits) and by the auto-redeem job. */
  'redemptions',
  /** Delivering signed webhook events to agents' receivers, retried with backoff. */
  'webhooks',
  /** Stop-loss / take-profit monitors: the scheduled evaluation and the exits it triggers. */
  'risk-monitors',
  /** Backtest tapes: the recorder's appends to the tape store and the slices agents ask for (the API waits on these). */
  'tapes',
  /** Recording market data the service serves but does not trade on: Binance candles. */
  'candles',
  /** Turning settled venue fills into each watching agent's Reactor signals, and withdrawing them on a reorg. */
  'reactor',
] as const;

export type QueueName = (typeof QUEUE_NAMES)[number];

export function isQueueName(name: string): name is QueueName {
  return (QUEUE_NAMES as readonly string[]).includes(name);
}
