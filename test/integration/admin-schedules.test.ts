import assert from 'node:assert/strict';
import { scheduledTick } from '../../jobs/define-schedule.js';
import { SCHEDULES } from '../../shared/domains/schedules/schedule-table.js';
import type { ScheduleView } from '../../shared/domains/schedules/schedule-admin.js';
import { minuteSlot } from '../../shared/infra/queue/slots.js';
import { testContext } from '../support/context.js';
import { api } from '../support/http.js';

const operator = () => `Bearer ${testContext().operatorToken}`;

const scheduleOf = async (name: string): Promise<ScheduleView> => {
  const res = await api().get('/api/admin/schedules').set('Authorization', operator());
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body.schedules as ScheduleView[]).find((s) => s.name === name)!;
};

describe('operator schedules API #integration', () => {
  it('when /api/admin/schedules is called without the operator token, then 401 JSON', async () => {
    const res = await api().get('/api/admin/schedules');
    assert.equal(res.status, 401);
    assert.equal(typeof res.body.fix, 'string');
    const pause = await api().post('/api/admin/schedules/heartbeat/pause');
    assert.equal(pause.status, 401);
  });

  it('when an operator lists schedules, then every schedule shows its cron, what it does, its last run and its next run', async () => {
    const asked = Date.now();
    const res = await api().get('/api/admin/schedules').set('Authorization', operator());
    const answered = Date.now();
    assert.equal(res.status, 200);
    const listed = res.body.schedules as ScheduleView[];
    assert.deepEqual(
      listed.map((s) => s.name),
      SCHEDULES.map((s) => s.name),
    );
    for (const s of listed) {
      assert.equal(s.cron, SCHEDULES.find((x) => x.name === s.name)!.cron);
      assert.ok(s.description.length > 10, `${s.name} says what it does`);
      assert.ok(Date.parse(s.next_run_at) > asked, `${s.name} next run is ahead of the request`);
      assert.equal(typeof s.paused, 'boolean');
      assert.ok('outcome' in s.last_run);
    }
    // Every minute: the next run is the first minute boundary after the moment the list was made,
    // which lies between the readings taken before the request and after its answer.
    const heartbeat = listed.find((s) => s.name === 'heartbeat')!;
    const nextMinuteAfter = (t: number) => Math.floor(t / 60_000) * 60_000 + 60_000;
    const next = Date.parse(heartbeat.next_run_at);
    assert.ok(next >= nextMinuteAfter(asked) && next <= nextMinuteAfter(answered), heartbeat.next_run_at);
  });

  it('when a schedule is paused, then its ticks are skipped and recorded as skipped until it is resumed, and each action is audited as "api"', async () => {
    const { deps } = testContext();
    const name = 'refresh-volumes';
    const spec = SCHEDULES.find((s) => s.name === name)!;
    const paused = await api().post(`/api/admin/schedules/${name}/pause`).set('Authorization', operator());
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    assert.equal(paused.body.paused, true);
    assert.equal(paused.body.paused_by, 'api');
    try {
      const at = new Date('2031-02-03T04:05:00.000Z');
      await scheduledTick(deps, spec, at);
      assert.equal(await deps.queues.queues.leaderboard.getJob(`${name}-${minuteSlot(at)}`), undefined);
      const skipped = await scheduleOf(name);
      assert.equal(skipped.last_run.outcome, 'skipped');
      assert.ok(skipped.skips >= 1);
    } finally {
      const resumed = await api()
        .post(`/api/admin/schedules/${name}/resume`)
        .set('Authorization', operator());
      assert.equal(resumed.status, 200);
      assert.equal(resumed.body.paused, false);
    }
    const at = new Date('2031-02-03T04:10:00.000Z');
    await scheduledTick(deps, spec, at);
    assert.ok(
      await deps.queues.queues.leaderboard.getJob(`${name}-${minuteSlot(at)}`),
      'resumed: the tick enqueues',
    );
    assert.equal((await scheduleOf(name)).last_run.outcome, 'succeeded');

    const list = await api().get('/api/admin/schedules').set('Authorization', operator());
    const actions = (
      list.body.actions as { actor: string; action: string; target: string; at: string }[]
    ).filter((a) => a.target === name);
    assert.deepEqual(
      actions.slice(0, 2).map((a) => [a.action, a.actor]),
      [
        ['schedule.resume', 'api'],
        ['schedule.pause', 'api'],
      ],
    );
  });

  it('when an operator runs a schedule now, then its tick runs at once and the run is recorded and audited', async () => {
    const { deps } = testContext();
    const before = await scheduleOf('heartbeat');
    const res = await api().post('/api/admin/schedules/heartbeat/run').set('Authorization', operator());
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.runs, before.runs + 1);
    assert.equal(res.body.last_run.outcome, 'succeeded');
    assert.equal(typeof res.body.last_run.duration_ms, 'number');
    const slot = minuteSlot(new Date(res.body.last_run.started_at));
    const job = await deps.queues.queues.system.getJob(`record-heartbeat-${slot}`);
    assert.ok(job, 'the tick enqueued the heartbeat of this minute');
    const action = await deps.models.OperatorAction.findOne({ action: 'schedule.run', target: 'heartbeat' })
      .sort({ at: -1 })
      .lean();
    assert.equal(action?.actor, 'api');
  });

  it('when the schedule name is unknown, then 404 naming the known schedules', async () => {
    const res = await api().post('/api/admin/schedules/hartbeat/pause').set('Authorization', operator());
    assert.equal(res.status, 404);
    assert.match(res.body.fix, /heartbeat/);
  });

  it('when /openapi.json is read, then the schedule routes are documented', async () => {
    const res = await api().get('/openapi.json');
    for (const path of [
      '/api/admin/schedules',
      '/api/admin/schedules/{name}/pause',
      '/api/admin/schedules/{name}/resume',
      '/api/admin/schedules/{name}/run',
    ])
      assert.ok(res.body.paths[path], path);
  });
});
