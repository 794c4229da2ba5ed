import type { Env } from '../../infra/config/env.js';
import type { JobData, JobName } from '../../infra/queue/jobs.js';
import { minuteSlot } from '../../infra/queue/slots.js';
import type { ScheduleDefinition } from './schedule-tick.js';

/** The jobs whose whole payload is the slot (slotJob in jobs.ts), read off the job table. */
type SlotJobName = { [N in JobName]: { slot: string } extends JobData<N> ? N : never }[JobName];

/** A schedule whose tick enqueues its job for the UTC minute slot (one job per slot, however many schedulers). */
const slotSchedule = (name: SlotJobName, cron: string, description: string): ScheduleDefinition => ({
  name,
  cron,
  description,
  tick: async (deps, scheduledAt) => {
    await deps.queues.enqueue(name, { slot: minuteSlot(scheduledAt) });
  },
});

/** The jobs whose payload is an interval bucket (intervalJob in jobs.ts). */
type IntervalJobName = {
  [N in JobName]: { every: number; bucket: number } extends JobData<N> ? N : never;
}[JobName];

/**
 * Ticks every 5 seconds and enqueues its job once per interval read from config (`every` seconds):
 * the bucket id makes every scheduler that ticks inside one interval enqueue the same job.
 */
const intervalSchedule = (
  name: IntervalJobName,
  every: (env: Env) => number,
  description: string,
): ScheduleDefinition => ({
  name,
  cron: '*/5 * * * * *',
  description,
  tick: async (deps, scheduledAt) => {
    const seconds = every(deps.env);
    await deps.queues.enqueue(name, {
      every: seconds,
      bucket: Math.floor(scheduledAt.getTime() / 1000 / seconds),
    });
  },
});

/**
 * Every schedule of the jobs process (which runs them) and of the operator's schedule views and
 * actions in the API (which list, pause and run them): here, below both.
 */
export const SCHEDULES: ScheduleDefinition[] = [
  {
    name: 'heartbeat',
    cron: '* * * * *',
    description:
      'Every minute: proves cron → queue → worker → MongoDB end to end; readiness shows the last heartbeat.',
    tick: async (deps, scheduledAt) => {
      await deps.queues.enqueue('record-heartbeat', {
        slot: minuteSlot(scheduledAt),
        scheduledAt: scheduledAt.toISOString(),
      });
    },
  },
  slotSchedule(
    'remark-leaderboard',
    '* * * * *',
    'Every minute: re-marks every agent’s P&L at current prices, so the leaderboard follows prices.',
  ),
  slotSchedule(
    'refresh-volumes',
    '*/5 * * * *',
    'Every five minutes: fills older than 24 h leave the 24 h volumes markets are sorted by.',
  ),
  slotSchedule(
    'snapshot-prices',
    '*/15 * * * *',
    'Every 15 minutes: a price point for each market that moved (the price-history anchors).',
  ),
  slotSchedule(
    'reconcile-agent-slots',
    '*/10 * * * *',
    'Every 10 minutes: repairs users’ tier-slot counters a crash left one off.',
  ),
  slotSchedule(
    'backfill-position-holders',
    '*/10 * * * *',
    'Every 10 minutes: positions recorded before their holder wallet was get it from the venue or their fills (a no-op once all have one).',
  ),
  intervalSchedule(
    'sync-external-prices',
    (env) => env.EXTERNAL_PRICE_SECONDS,
    'Every EXTERNAL_PRICE_SECONDS: refreshes imported markets’ venue prices and re-anchors their sim books.',
  ),
  intervalSchedule(
    'record-tapes',
    (env) => env.TAPE_RECORD_SECONDS,
    'Every TAPE_RECORD_SECONDS: appends venue public trades, sim fills and changed markets to the backtest tape store.',
  ),
  intervalSchedule(
    'check-resolutions',
    (env) => env.RESOLUTION_CHECK_SECONDS,
    'Every RESOLUTION_CHECK_SECONDS: closes imported markets the venue closed and settles the ones it resolved.',
  ),
  intervalSchedule(
    'sync-venue-orders',
    (env) => env.ORDER_SYNC_SECONDS,
    'Every ORDER_SYNC_SECONDS: follows real-venue orders that rest or wait, books their matches, closes finished ones.',
  ),
  slotSchedule(
    'import-fast-markets',
    '* * * * *',
    'Every minute: imports the venues’ rolling fast markets (5 m / 15 m crypto windows) ahead of their windows.',
  ),
  slotSchedule(
    'expire-sim-markets',
    '* * * * *',
    'Every minute: sim markets past resolves_at stop trading and the sim catalogue is topped up.',
  ),
  slotSchedule(
    'reconcile-trades',
    '*/5 * * * *',
    'Every five minutes: resumes trades whose job failed for good or vanished (nothing is left reserved).',
  ),
  intervalSchedule(
    'evaluate-position-monitors',
    (env) => env.RISK_MONITOR_SECONDS,
    'Every RISK_MONITOR_SECONDS: checks stop-loss / take-profit monitors against prices; crossings sell or raise risk alerts.',
  ),
  slotSchedule(
    'auto-redeem',
    '* * * * *',
    'Every minute: redeems managed wallets’ winning positions in resolved Polymarket markets.',
  ),
  slotSchedule(
    'refresh-copy-leaders',
    '0 2 * * *',
    'Daily at 02:00 UTC: backtests copying every wallet of the last week’s settled fills and stores the copy leaders per category (503 on GET /api/sdk/wc/copy-leaders until its first run).',
  ),
  slotSchedule(
    'record-candles',
    // Five seconds past the minute: the candle that just closed has settled on Binance by then.
    '5 * * * * *',
    'Every minute: stores the closed 1m candles of BTCUSDT, ETHUSDT and SOLUSDT from Binance (first run: the last CANDLE_BACKFILL_HOURS).',
  ),
];

/** Resolves SCHEDULER_JOBS strictly: an unknown name stops the process. */
export function selectSchedules(requested: string[] | undefined): ScheduleDefinition[] {
  if (!requested || requested.length === 0) return SCHEDULES;
  const known = SCHEDULES.map((s) => s.name);
  const unknown = requested.filter((n) => !known.includes(n));
  if (unknown.length)
    throw new Error(
      `SCHEDULER_JOBS names unknown schedule(s): ${unknown.join(', ')}. Known: ${known.join(', ')}`,
    );
  return SCHEDULES.filter((s) => requested.includes(s.name));
}
