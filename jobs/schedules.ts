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
  // Every 5 minutes: trades whose job failed for good or vanished are resumed (nothing left reserved).
  slotSchedule('reconcile-trades', '*/5 * * * *'),
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
