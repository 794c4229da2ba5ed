import type { OperatorActionView } from '../../../shared/domains/operator/record-action.js';
import type { ScheduleView } from '../../../shared/domains/schedules/schedule-admin.js';
import { csrfField, notice } from '../layout.js';
import { html, when, type Html } from '../html.js';

const OUTCOME_CLASS = { succeeded: 'ok', failed: 'bad', running: 'warn', skipped: 'warn' } as const;

export function durationText(ms: number | null): string {
  if (ms === null) return '—';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function actionButton(name: string, verb: 'pause' | 'resume' | 'run', label: string, csrf: string | null) {
  return html`<form
    class="inline"
    method="post"
    action="/admin/schedules/${encodeURIComponent(name)}/${verb}"
  >
    ${csrfField(csrf)}<button
      type="submit"
      class="${verb === 'run' ? 'secondary' : ''}"
      aria-label="${label} ${name}"
    >
      ${label}
    </button>
  </form>`;
}

export function actionsTable(caption: string, actions: OperatorActionView[]): Html {
  if (!actions.length) return html`<p class="muted">${caption}: none yet.</p>`;
  return html`<table>
    <caption>
      ${caption}
    </caption>
    <thead>
      <tr>
        <th scope="col">When</th>
        <th scope="col">Who</th>
        <th scope="col">Action</th>
        <th scope="col">Target</th>
        <th scope="col">Result</th>
      </tr>
    </thead>
    <tbody>
      ${actions.map(
        (a) =>
          html`<tr>
            <td>${when(a.at)}</td>
            <td>${a.actor}</td>
            <td><code>${a.action}</code></td>
            <td>${a.target}</td>
            <td>${a.detail ?? ''}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

const NOTICES: Record<string, (name: string) => string> = {
  pause: (name) => `Paused ${name}: its ticks are skipped until it is resumed.`,
  resume: (name) => `Resumed ${name}.`,
  run: (name) => `Ran ${name}: its tick enqueued its work.`,
};

export function schedulesPage(
  schedules: ScheduleView[],
  actions: OperatorActionView[],
  csrf: string | null,
  done?: { verb: string; name: string },
): Html {
  const message =
    done && NOTICES[done.verb] && schedules.some((s) => s.name === done.name)
      ? NOTICES[done.verb]!(done.name)
      : null;
  return html`<h1>Schedules</h1>
    <p class="lead">
      The jobs process ticks these (UTC). A tick only enqueues work for the workers. A paused schedule’s ticks
      are skipped and counted; run now calls the tick at once.
    </p>
    ${message && notice('success', message)}
    <table>
      <caption>
        Schedules
      </caption>
      <thead>
        <tr>
          <th scope="col">Schedule</th>
          <th scope="col">What it does</th>
          <th scope="col">Cron (UTC)</th>
          <th scope="col">Last run</th>
          <th scope="col">Duration</th>
          <th scope="col">Outcome</th>
          <th scope="col">Next run</th>
          <th scope="col">Runs / failures / skips</th>
          <th scope="col">State</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        ${schedules.map(
          (s) =>
            html`<tr>
              <th scope="row">${s.name}</th>
              <td>${s.description}</td>
              <td><code>${s.cron}</code></td>
              <td>${when(s.last_run.started_at)}</td>
              <td class="num">${durationText(s.last_run.duration_ms)}</td>
              <td>
                ${s.last_run.outcome ? html`<span class="${OUTCOME_CLASS[s.last_run.outcome]}">${s.last_run.outcome}</span>` : html`<span class="muted">never ran</span>`}
                ${s.last_run.error && html`<br /><span class="bad">${s.last_run.error}</span>`}
              </td>
              <td>${when(s.next_run_at)}</td>
              <td class="num">${s.runs} / ${s.failures} / ${s.skips}</td>
              <td>
                ${s.paused ? html`<span class="warn">Paused</span> by ${s.paused_by ?? '?'}<br />${when(s.paused_at)}` : html`<span class="ok">Active</span>`}
              </td>
              <td>
                ${s.paused ? actionButton(s.name, 'resume', 'Resume', csrf) : actionButton(s.name, 'pause', 'Pause', csrf)}${actionButton(s.name, 'run', 'Run now', csrf)}
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
    <h2>Who did what</h2>
    ${actionsTable('Schedule actions', actions)}`;
}
