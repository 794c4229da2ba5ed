import type { Env } from '../shared/infra/config/env.js';
import type { JobData, JobName } from '../shared/infra/queue/jobs.js';
import { minuteSlot } from '../shared/infra/queue/slots.js';
import type { ScheduleSpec } from './define-schedule.js';

/** The jobs whose whole payload is the slot (slotJob in jobs.ts), read off the job table. */
type SlotJobName = { [N in JobName]: { slot: string } extends JobData<N> ? N : never }[JobName];

/** A schedule whose tick enqueues its job for the UTC minute slot (one job per slot, however many schedulers). */
const slotSchedule = (name: SlotJobName, cron: string): ScheduleSpec => ({
  name,
  cron,
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
const intervalSchedule = (name: IntervalJobName, every: (env: Env) => number): ScheduleSpec => ({
  name,
  cron: '*/5 * * * * *',
  tick: async (deps, scheduledAt) => {
    const seconds = every(deps.env);
    await deps.queues.enqueue(name, {
      every: seconds,
      bucket: Math.floor(scheduledAt.getTime() / 1000 / seconds),
    });
  },
});

/** Every schedule of the jobs process. */
export const SCHEDULES: ScheduleSpec[] = [
  {
    name: 'heartbeat',
    // Every minute: proves cron → queue → worker → MongoDB end to end; readiness shows the last one.
    cron: '* * * * *',
    tick: async (deps, scheduledAt) => {
      await deps.queues.enqueue('record-heartbeat', {
        slot: minuteSlot(scheduledAt),
        scheduledAt: scheduledAt.toISOString(),
      });
    },
  },
  // Every minute: P&L of open positions follows prices, so the leaderboard is re-marked.
  slotSchedule('remark-leaderboard', '* * * * *'),
  // Every five minutes: fills older than 24 h leave the 24 h volume lists sort by.
  slotSchedule('refresh-volumes', '*/5 * * * *'),
  // Every 15 minutes: a price point per market that moved in the slot (history anchors).
  slotSchedule('snapshot-prices', '*/15 * * * *'),
  // Every 10 minutes: tier-slot counters a crash left one off are repaired.
  slotSchedule('reconcile-agent-slots', '*/10 * * * *'),
  // Imported markets follow their venue: prices (and the sim book's anchor), closes and resolutions.
  intervalSchedule('sync-external-prices', (env) => env.EXTERNAL_PRICE_SECONDS),
  intervalSchedule('check-resolutions', (env) => env.RESOLUTION_CHECK_SECONDS),
  // Real-venue orders that rest or wait: matches booked, finished orders closed.
  intervalSchedule('sync-venue-orders', (env) => env.ORDER_SYNC_SECONDS),
  // Every minute: the venues' rolling fast markets are imported ahead of their windows.
  slotSchedule('import-fast-markets', '* * * * *'),
  // Every minute: sim markets past resolves_at stop trading; the catalogue is topped up.
  slotSchedule('expire-sim-markets', '* * * * *'),
  // Every 5 minutes: trades whose job failed for good or vanished are resumed (nothing left reserved).
  slotSchedule('reconcile-trades', '*/5 * * * *'),
  // Stop-loss / take-profit monitors checked against current prices; crossings sell or raise risk alerts.
  intervalSchedule('evaluate-position-monitors', (env) => env.RISK_MONITOR_SECONDS),
  // Every minute: managed wallets' winning positions in resolved Polymarket markets are redeemed.
  slotSchedule('auto-redeem', '* * * * *'),
];

/** Resolves SCHEDULER_JOBS strictly: an unknown name stops the process. */
export function selectSchedules(requested: string[] | undefined): ScheduleSpec[] {
  if (!requested || requested.length === 0) return SCHEDULES;
  const known = SCHEDULES.map((s) => s.name);
  const unknown = requested.filter((n) => !known.includes(n));
  if (unknown.length)
    throw new Error(
      `SCHEDULER_JOBS names unknown schedule(s): ${unknown.join(', ')}. Known: ${known.join(', ')}`,
    );
  return SCHEDULES.filter((s) => requested.includes(s.name));
}
