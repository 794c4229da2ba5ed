// WARNING: job names and payload shapes are persisted in Redis. A job already queued must still
// parse after a deploy: change a payload compatibly, or add a new job name and drain the old one.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { JobsOptions } from 'bullmq';
import type { QueueName } from './queues.js';

interface JobDefinition<S extends z.ZodType = z.ZodType> {
  queue: QueueName;
  /** Validated by the producer before `add` and by the worker before processing. */
  schema: S;
  /** Retry, backoff and retention defaults for every job of this name. */
  options: Omit<JobsOptions, 'jobId'>;
  /**
   * Deterministic job id: enqueueing the same logical job twice yields one job. BullMQ ids must not
   * contain ':' nor be all digits.
   */
  jobId: (data: z.output<S>) => string;
}

const define = <S extends z.ZodType>(def: JobDefinition<S>) => def;

/** Kept for an hour so that a slot-derived id keeps blocking a second scheduler for that slot. */
const keepCompleted = { age: 3600, count: 5000 };
const keepFailed = { age: 7 * 24 * 3600 };

/** Retried with exponential backoff and jitter, kept as the retention policy says. */
const retrying = (attempts: number, delay: number): JobDefinition['options'] => ({
  attempts,
  backoff: { type: 'exponential', delay, jitter: 0.5 },
  removeOnComplete: keepCompleted,
  removeOnFail: keepFailed,
});

/** A UTC minute, `yyyyMMddHHmm` (see slots.ts). */
const SLOT = z.string().regex(/^\d{12}$/);

/** An id of arbitrary characters as a BullMQ-safe job id part. */
const idPart = (id: string) => createHash('sha256').update(id).digest('hex').slice(0, 24);

/** A transaction hash, lowercase hex. */
const TX_HASH = z.string().regex(/^0x[0-9a-f]{64}$/);

/** A scheduled maintenance job keyed by its slot: a second scheduler cannot double-run a slot. */
const slotJob = (name: string, queue: QueueName) =>
  define({
    queue,
    schema: z.object({ slot: SLOT }),
    options: retrying(3, 1000),
    jobId: (d) => `${name}-${d.slot}`,
  });

/**
 * A scheduled job that runs every `every` seconds: `bucket` is floor(epoch seconds / every), so the
 * id is the same for every scheduler that ticks inside one interval (the cadence comes from config).
 */
const intervalJob = (name: string, queue: QueueName) =>
  define({
    queue,
    schema: z.object({ every: z.number().int().positive(), bucket: z.number().int().nonnegative() }),
    options: retrying(2, 1000),
    jobId: (d) => `${name}-${d.every}-${d.bucket}`,
  });

export const JOBS = {
  /** No-op round trip through the queue: proves producer → Redis → worker → result for /healthz/ready. */
  ping: define({
    queue: 'system',
    schema: z.object({ nonce: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/) }),
    options: { attempts: 1, removeOnComplete: { age: 300, count: 1000 }, removeOnFail: { age: 3600 } },
    jobId: (d) => `ping-${d.nonce}`,
  }),
  /** Scheduler heartbeat: one per UTC minute slot, records that the scheduler and a worker are alive. */
  'record-heartbeat': define({
    queue: 'system',
    schema: z.object({ slot: SLOT, scheduledAt: z.iso.datetime() }),
    options: retrying(3, 1000),
    jobId: (d) => `record-heartbeat-${d.slot}`,
  }),
  /** Repairs users' tier-slot counters left one off by a crash mid-claim (users/reconcile-agent-slots.ts). */
  'reconcile-agent-slots': slotJob('reconcile-agent-slots', 'system'),
  /** Gives positions recorded before their holder wallet was theirs (positions/backfill-holders.ts). */
  'backfill-position-holders': slotJob('backfill-position-holders', 'system'),
  /** Resumes trades whose job failed for good or vanished (trading/reconcile-trades.ts). */
  'reconcile-trades': slotJob('reconcile-trades', 'system'),
  /** Executes one persisted trade; idempotent (see shared/domains/trading/execute-trade.ts). */
  'execute-trade': define({
    queue: 'trades',
    schema: z.object({ tradeId: z.uuid() }),
    options: retrying(8, 100),
    jobId: (d) => `execute-trade-${d.tradeId}`,
  }),
  /** Looks at an open Kalshi order on DFlow; re-enqueued with a delay until DFlow is done with it. */
  'follow-kalshi-order': define({
    queue: 'trades',
    schema: z.object({ tradeId: z.uuid(), poll: z.number().int().nonnegative() }),
    options: retrying(3, 1000),
    jobId: (d) => `follow-kalshi-order-${d.tradeId}-${d.poll}`,
  }),
  /** Pays out a resolved market's sim positions; retries while trades on it are still in flight. */
  'settle-market': define({
    queue: 'settlement',
    schema: z.object({ marketId: z.string().min(1) }),
    options: retrying(30, 250),
    jobId: (d) => `settle-market-${d.marketId}`,
  }),
  /** Re-marks every agent's P&L at current prices; one per minute slot. */
  'remark-leaderboard': slotJob('remark-leaderboard', 'leaderboard'),
  /** Lets fills older than 24 h age out of each market's 24 h volume; one per five-minute slot. */
  'refresh-volumes': slotJob('refresh-volumes', 'leaderboard'),
  /** Price snapshots of the markets that moved in the 15-minute slot ending at `slot`. */
  'snapshot-prices': slotJob('snapshot-prices', 'leaderboard'),
  /** Backtests copying each wallet of the last week's fills and replaces the stored copy leaders (copytrading/copy-leaders/). */
  'refresh-copy-leaders': slotJob('refresh-copy-leaders', 'leaderboard'),
  /** Runs one persisted market import (shared/domains/imports/run-import.ts); the API waits on it. */
  'import-markets': define({
    queue: 'market-imports',
    schema: z.object({ importId: z.uuid() }),
    options: retrying(3, 500),
    jobId: (d) => `import-markets-${d.importId}`,
  }),
  /** Refreshes external prices of open imported markets and re-anchors their sim books. */
  'sync-external-prices': intervalJob('sync-external-prices', 'venue-sync'),
  /** Follows real-venue orders still working (resting, delayed) and books what they match. */
  'sync-venue-orders': intervalJob('sync-venue-orders', 'venue-sync'),
  /** Closes imported markets the venue closed and settles the ones it resolved. */
  'check-resolutions': intervalJob('check-resolutions', 'venue-sync'),
  /** Imports the venues' rolling fast markets (5 m / 15 m crypto windows) ahead of their windows. */
  'import-fast-markets': slotJob('import-fast-markets', 'venue-sync'),
  /** Appends new prints and changed markets to the backtest tape store (shared/domains/tapes/record-tapes.ts). */
  'record-tapes': intervalJob('record-tapes', 'tapes'),
  /**
   * Cuts one backtest tape (shared/domains/tapes/slice-tape.ts); the API waits on it. The id is the
   * tape's key, so identical requests at once, from any API process, wait on one build.
   */
  'slice-tape': define({
    queue: 'tapes',
    schema: z.object({
      key: z.string().regex(/^[0-9a-f]{32}$/),
      datasetRev: z.string().regex(/^[0-9a-f]{16}$/),
      t0: z.string().max(40),
      t1: z.string().max(40),
      startSec: z.number().int().nonnegative(),
      endSec: z.number().int().nonnegative(),
      maxMarkets: z.number().int().positive(),
      minVolume: z.number().nonnegative(),
      q: z.string().max(200).nullable(),
      /** Store files relative to DATA_DIR/tapes/store: the slice reads exactly those the key was made of. */
      marketFiles: z.array(z.string().max(300)),
      printFiles: z.array(z.string().max(300)),
    }),
    // Not retried: a failed cut is answered at once (the caller may ask again).
    options: { attempts: 1, removeOnComplete: keepCompleted, removeOnFail: { age: 300 } },
    jobId: (d) => `slice-tape-${d.key}`,
  }),
  /** Stops trading on sim catalogue markets past their resolution time and tops the catalogue up. */
  'expire-sim-markets': slotJob('expire-sim-markets', 'venue-sync'),
  /**
   * Sends one recorded, allow-listed transaction (shared/domains/venues/polymarket/onchain/broadcast-worker.ts). One
   * job per client request (`request` counts them), so asking again sends again: harmless, the node
   * deduplicates on the hash.
   */
  'broadcast-tx': define({
    queue: 'tx-broadcasts',
    schema: z.object({ hash: TX_HASH, request: z.number().int().positive() }),
    options: retrying(5, 500),
    jobId: (d) => `broadcast-tx-${d.hash}-${d.request}`,
  }),
  /** Reads a sent transaction's receipt; re-enqueued with a delay until it is mined. */
  'follow-tx-receipt': define({
    queue: 'tx-broadcasts',
    schema: z.object({ hash: TX_HASH, poll: z.number().int().nonnegative() }),
    options: retrying(3, 1000),
    jobId: (d) => `follow-tx-receipt-${d.hash}-${d.poll}`,
  }),
  /**
   * Redeems one wallet's positions (the human's, or an agent's own) in one resolved market (shared/domains/venues/polymarket/onchain/redeem-position.ts).
   * `attempt` names the request (`r<n>`, the record's request count) or the auto-redeem slot
   * (`auto-<slot>`); the redemption record, not the job id, makes it happen once.
   */
  'redeem-position': define({
    queue: 'redemptions',
    schema: z.object({
      userId: z.string().min(1),
      /** Set when the agent's own wallet redeems (venues/polymarket/onchain/redeeming-wallet.ts); else the human's wallet. */
      agentId: z.string().min(1).nullable(),
      marketId: z.string().min(1),
      attempt: z.string().regex(/^(r\d+|auto-\d{12})$/),
    }),
    // Retried for about half an hour: the node may lag the venue's resolution, or the wallet be busy.
    options: retrying(11, 1000),
    // User ids come from the identity provider and may hold ':' (refused in BullMQ ids): hashed.
    jobId: (d) => `redeem-position-${idPart(d.userId)}-${d.agentId ?? 'human'}-${d.marketId}-${d.attempt}`,
  }),
  /** Finds resolved winning positions of managed wallets with auto-redeem on and enqueues their redemption. */
  'auto-redeem': slotJob('auto-redeem', 'redemptions'),
  /**
   * Delivers one event to one webhook (shared/domains/webhooks/deliver-webhook.ts). The id is the
   * webhook and the event, so emitting an event again enqueues nothing new; a delivery that fails is
   * retried with exponential backoff (the base delay is WEBHOOK_RETRY_BASE_MS, given at enqueue).
   */
  'deliver-webhook': define({
    queue: 'webhooks',
    schema: z
      .object({
        webhookId: z.uuid().optional(),
        /** Instead of a registered webhook: a price alert's own `webhook_url` (unsigned, no failure count). */
        alertId: z.uuid().optional(),
        /** Instead: the chat bridge (`clawdbot_webhook_url`) of this settings owner (its key). */
        bridgeOwner: z.string().min(1).max(200).optional(),
        eventId: z.string().min(1).max(200),
        type: z.string().min(1).max(64),
        createdAt: z.iso.datetime(),
        data: z.record(z.string(), z.unknown()),
      })
      .refine((d) => [d.webhookId, d.alertId, d.bridgeOwner].filter(Boolean).length === 1, {
        message: 'exactly one of webhookId, alertId and bridgeOwner',
      }),
    options: { ...retrying(10, 2000), backoff: { type: 'exponential', delay: 2000 } },
    jobId: (d) =>
      `deliver-webhook-${d.webhookId ?? (d.alertId ? `alert-${d.alertId}` : `bridge-${idPart(d.bridgeOwner!)}`)}-${idPart(d.eventId)}`,
  }),
  /**
   * Walks a market's untriggered price alerts over its new price events (shared/domains/alerts/
   * evaluate-price-alerts.ts). Enqueued per recorded price change (`cause`: the trade, or the
   * re-anchor's event seq), so a retried producer enqueues nothing new; any run covers every event
   * since each alert's last one, so a lost or late job only delays a firing until the next change.
   */
  'evaluate-price-alerts': define({
    queue: 'webhooks',
    schema: z.object({ marketId: z.string().min(1), cause: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/) }),
    options: retrying(5, 500),
    jobId: (d) => `evaluate-price-alerts-${idPart(d.marketId)}-${d.cause}`,
  }),
  /**
   * What follows a recorded fill, kept off the trade's answer (workers/processors/trading.processors.ts):
   * `trade.executed` to the agent's webhooks, the buy's default monitor, the market's price alerts.
   * Enqueued by the execute-trade job after the fill; a retried trade job enqueues the same id.
   */
  'after-trade-fill': define({
    queue: 'trade-effects',
    /**
     * `late`: queued when a venue order that rested (or waited on the venue) closes filled, after the
     * trade job's own run found nothing filled yet; a job id of its own, so that it is not the same job.
     */
    schema: z.object({ tradeId: z.string().min(1).max(200), late: z.boolean().optional() }),
    options: retrying(5, 1000),
    jobId: (d) => `after-trade-fill-${idPart(d.tradeId)}${d.late ? '-late' : ''}`,
  }),
  /**
   * Reads every active position monitor in batches (one price read per market of a batch) and
   * triggers those whose position crossed its threshold (shared/domains/monitors/evaluate-monitors.ts).
   */
  'evaluate-position-monitors': intervalJob('evaluate-position-monitors', 'risk-monitors'),
  /**
   * Carries out a triggered monitor's exit: a sell through the trade pipeline (`source:
   * risk-monitor`), or a risk alert for an external wallet (shared/domains/monitors/exit-position.ts).
   * `attempt` is `t` when the trigger enqueues it and `r<bucket>` when the evaluation finds the exit
   * unfinished later: the exit's idempotency key makes every attempt place the sell at most once.
   */
  'exit-monitored-position': define({
    queue: 'risk-monitors',
    schema: z.object({
      monitorId: z.string().min(1).max(300),
      generation: z.number().int().positive(),
      attempt: z.string().regex(/^(t|r\d+)$/),
    }),
    options: retrying(5, 2000),
    jobId: (d) => `exit-monitored-position-${idPart(d.monitorId)}-${d.generation}-${d.attempt}`,
  }),
  /** Stores the closed 1m candles of the recorded symbols since the newest stored ones (candles/record-candles.ts). */
  'record-candles': slotJob('record-candles', 'candles'),
  /**
   * Matches newly settled venue fills (stored in `venue_fills` by the fill-feed follower) against
   * every agent's Reactor watchlist and writes the signals (shared/domains/reactor/). The id is the
   * fills, so the follower re-enqueueing a block after a restart adds nothing; signals are written
   * idempotently besides, so a retried or replayed job never doubles one.
   */
  'react-to-fills': define({
    queue: 'reactor',
    schema: z.object({ fillIds: z.array(z.string().min(1).max(300)).min(1).max(5000) }),
    options: retrying(8, 250),
    jobId: (d) => `react-to-fills-${idPart(d.fillIds.join(','))}`,
  }),
  /** Fills whose block a reorg replaced: their pending signals are withdrawn (shared/domains/reactor/). */
  'withdraw-fills': define({
    queue: 'reactor',
    schema: z.object({ fillIds: z.array(z.string().min(1).max(300)).min(1).max(5000) }),
    options: retrying(8, 250),
    jobId: (d) => `withdraw-fills-${idPart(d.fillIds.join(','))}`,
  }),
} satisfies Record<string, JobDefinition>;

export type JobName = keyof typeof JOBS;
export type JobData<N extends JobName> = z.output<(typeof JOBS)[N]['schema']>;

export function jobNamesOf(queue: QueueName): JobName[] {
  return (Object.keys(JOBS) as JobName[]).filter((name) => JOBS[name].queue === queue);
}
