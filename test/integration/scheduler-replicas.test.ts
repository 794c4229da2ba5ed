import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SCHEDULES } from '../../shared/domains/schedules/schedule-table.js';
import { testContext } from '../support/context.js';
import {
  deploymentEnv,
  startRoleProcess,
  stopRoleProcess,
  type RoleProcess,
} from '../support/role-processes.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface TickLine {
  pid: number;
  msg: string;
  schedule?: string;
  scheduledAt?: string;
  time: string;
}

/** The scheduler's debug lines of a jobs process: each tick it ran, each tick another one took. */
function tickLines(p: RoleProcess): TickLine[] {
  return p
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as TickLine)
    .filter((l) => l.schedule && l.scheduledAt);
}

const runsBySchedule = async () => {
  const runs = await testContext().deps.models.ScheduleRun.find({}).lean();
  return new Map(runs.map((r) => [r._id, r.runs ?? 0]));
};

/**
 * docker-compose.yml runs one `jobs` service; a second replica (a rolling deploy, a scale-up, an
 * operator's mistake) must not run any schedule twice. Two jobs processes (jobs/main.ts as compose
 * runs it) tick every schedule on one Redis and one database; their debug logs name each tick they
 * ran and each tick the other took.
 */
describe('scheduler with two jobs processes #integration', function () {
  this.timeout(180_000);
  const procs: RoleProcess[] = [];

  after(async () => {
    await Promise.all(procs.map((p) => stopRoleProcess(p)));
  });

  it('when two jobs processes run every schedule across a minute boundary, then each tick of each schedule runs exactly once (in one of them) and schedule_runs counts it once', async () => {
    const env = deploymentEnv(`${testContext().env.QUEUE_PREFIX}-sched-${randomBytes(2).toString('hex')}`, {
      LOG_LEVEL: 'debug',
    });
    const before = await runsBySchedule();
    procs.push(...(await Promise.all([startRoleProcess('jobs', env), startRoleProcess('jobs', env)])));
    const bothUp = Date.now();
    // Past the next minute boundary (every minute schedule ticks) and two 5-second ticks after it.
    const boundary = Math.ceil(bothUp / 60_000) * 60_000;
    await sleep(boundary - Date.now() + 11_000);
    await Promise.all(procs.map((p) => stopRoleProcess(p)));

    const lines = procs.flatMap(tickLines);
    const ran = lines.filter((l) => l.msg === 'schedule tick');
    const taken = lines.filter((l) => l.msg === 'schedule tick taken by another scheduler');
    const byTick = new Map<string, TickLine[]>();
    for (const l of ran)
      byTick.set(`${l.schedule} ${l.scheduledAt}`, [
        ...(byTick.get(`${l.schedule} ${l.scheduledAt}`) ?? []),
        l,
      ]);
    const twice = [...byTick].filter(([, ls]) => ls.length !== 1).map(([k, ls]) => `${k} ×${ls.length}`);
    assert.deepEqual(twice, [], `ticks run more than once: ${twice.join(', ')}`);

    // Every schedule that ticks at least every minute ticked in the window.
    const minuteOrFaster = SCHEDULES.filter((s) =>
      ['* * * * *', '5 * * * * *', '*/5 * * * * *'].includes(s.cron),
    );
    const ticked = new Set(ran.map((l) => l.schedule));
    assert.deepEqual(
      minuteOrFaster.map((s) => s.name).filter((n) => !ticked.has(n)),
      [],
      'every minute and 5-second schedule ticked',
    );
    // Both schedulers were live for the ticks after both were up: each such tick one ran, one yielded.
    const contested = [...byTick.keys()].filter((k) => Date.parse(k.split(' ')[1]!) > bothUp + 1000);
    assert.ok(contested.length >= minuteOrFaster.length, `ticks after both were up: ${contested.length}`);
    const yielded = new Set(taken.map((l) => `${l.schedule} ${l.scheduledAt}`));
    const unopposed = contested.filter((k) => !yielded.has(k));
    assert.deepEqual(unopposed, [], 'the other scheduler saw each tick and yielded it');
    assert.ok(new Set(ran.map((l) => l.pid)).size >= 1);

    // schedule_runs (the operator's run counts) counts each tick once.
    const after = await runsBySchedule();
    for (const name of ticked) {
      const ticks = ran.filter((l) => l.schedule === name).length;
      assert.equal(
        (after.get(name!) ?? 0) - (before.get(name!) ?? 0),
        ticks,
        `schedule_runs.runs of ${name}`,
      );
    }
  });
});
