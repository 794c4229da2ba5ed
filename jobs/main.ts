import { isMain } from '../shared/infra/process/is-main.js';
import { healthRole } from '../shared/composition/health-server.js';
import { runProcess } from '../shared/composition/run-process.js';
import type { Role } from '../shared/composition/role.js';
import { startSchedule } from './define-schedule.js';
import { selectSchedules } from '../shared/domains/schedules/schedule-table.js';

/**
 * The scheduler: node-cron ticks that only enqueue. Any number of replicas may run: each tick is
 * claimed in Redis (a lease per tick, jobs/tick-claim.ts) and runs in exactly one of them; the slot
 * job ids keep a job single besides.
 */
export const jobsRole: Role = {
  name: 'jobs',
  async start(deps) {
    const tasks = selectSchedules(deps.env.SCHEDULER_JOBS).map((spec) => startSchedule(deps, spec));
    deps.log.info({ schedules: tasks.map((t) => t.name) }, 'scheduler started');
    return {
      async stop() {
        await Promise.all(tasks.map((t) => t.stop()));
      },
    };
  },
};

if (isMain(import.meta.url)) void runProcess('jobs', [jobsRole, healthRole], { embedded: false });
