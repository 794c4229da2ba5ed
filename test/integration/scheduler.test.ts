import assert from 'node:assert/strict';
import { startSchedule } from '../../jobs/define-schedule.js';
import { minuteSlot, slotTime } from '../../shared/infra/queue/slots.js';
import { SCHEDULES, selectSchedules } from '../../shared/domains/schedules/schedule-table.js';
import { testContext } from '../support/context.js';

const waitFor = async (check: () => Promise<boolean>, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail('condition not met in time');
};

describe('scheduled jobs #integration', () => {
  it('minuteSlot is the UTC minute as yyyyMMddHHmm, and slotTime its start', () => {
    assert.equal(minuteSlot(new Date('2026-11-22T04:05:59.999Z')), '202611220405');
    assert.equal(slotTime('202611220405').toISOString(), '2026-11-22T04:05:00.000Z');
  });

  it('when the heartbeat ticks twice for one slot, then one job runs and the worker records the heartbeat', async () => {
    const { deps } = testContext();
    const heartbeat = SCHEDULES.find((s) => s.name === 'heartbeat')!;
    const at = new Date('2030-01-01T00:07:00.000Z');
    await heartbeat.tick(deps, at);
    await heartbeat.tick(deps, at);
    const job = await deps.queues.queues.system.getJob('record-heartbeat-203001010007');
    assert.ok(job, 'the slot-derived job exists');
    await waitFor(
      async () => (await deps.models.Heartbeat.findById('scheduler').lean())?.slot === '203001010007',
    );
    // The worker records the heartbeat before BullMQ marks its job completed.
    await waitFor(async () => (await job!.getState()) === 'completed');
    const waiting = await deps.queues.queues.system.getJobs(['waiting', 'active', 'delayed']);
    assert.equal(waiting.filter((j) => j.id === 'record-heartbeat-203001010007').length, 0);
  });

  it('when a schedule runs, then schedule_runs records its start, end and errors', async () => {
    const { deps } = testContext();
    let calls = 0;
    const ok = startSchedule(deps, { name: 'test-ok', cron: '* * * * * *', tick: async () => void calls++ });
    const bad = startSchedule(deps, {
      name: 'test-bad',
      cron: '* * * * * *',
      tick: async () => {
        throw new Error('venue down');
      },
    });
    try {
      await waitFor(async () => {
        const [a, b] = await Promise.all([
          deps.models.ScheduleRun.findById('test-ok').lean(),
          deps.models.ScheduleRun.findById('test-bad').lean(),
        ]);
        return Boolean(a?.lastFinishedAt && b?.lastFinishedAt);
      }, 4000);
    } finally {
      await ok.stop();
      await bad.stop();
    }
    const okRun = await deps.models.ScheduleRun.findById('test-ok').lean();
    const badRun = await deps.models.ScheduleRun.findById('test-bad').lean();
    assert.ok(calls >= 1 && okRun!.runs >= 1);
    assert.equal(okRun!.lastError, null);
    assert.equal(badRun!.lastError, 'venue down');
    assert.ok(badRun!.failures >= 1);
  });

  it('when SCHEDULER_JOBS names an unknown schedule, then the selection fails naming the known ones', () => {
    assert.deepEqual(
      selectSchedules(['heartbeat']).map((s) => s.name),
      ['heartbeat'],
    );
    assert.throws(() => selectSchedules(['hartbeat']), /unknown schedule\(s\): hartbeat\. Known: heartbeat/);
  });
});
