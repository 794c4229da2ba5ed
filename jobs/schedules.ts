import { minuteSlot } from '../shared/infra/queue/slots.js';
import type { ScheduleSpec } from './define-schedule.js';

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
  {
    name: 'remark-leaderboard',
    // Every minute: P&L of open positions follows prices, so the leaderboard is re-marked.
    cron: '* * * * *',
    tick: async (deps, scheduledAt) => {
      await deps.queues.enqueue('remark-leaderboard', { slot: minuteSlot(scheduledAt) });
    },
  },
  {
    name: 'refresh-volumes',
    // Every five minutes: fills older than 24 h leave the 24 h volume lists sort by.
    cron: '*/5 * * * *',
    tick: async (deps, scheduledAt) => {
      await deps.queues.enqueue('refresh-volumes', { slot: minuteSlot(scheduledAt) });
    },
  },
  {
    name: 'snapshot-prices',
    // Every 15 minutes: a price point per market that moved in the slot (history anchors).
    cron: '*/15 * * * *',
    tick: async (deps, scheduledAt) => {
      await deps.queues.enqueue('snapshot-prices', { slot: minuteSlot(scheduledAt) });
    },
  },
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
